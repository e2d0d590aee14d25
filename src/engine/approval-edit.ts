import { canonicalJson } from '../domain/fingerprint.js';
import { RunError } from '../domain/run-error.js';
import { stringLeaves, type GatedCall } from '../records/run-state.js';
import { createCallInput } from '../tools/context.js';
import { withExpressionSandbox } from '../tools/expressions.js';
import type { RunEngine } from './engine.js';
import type { RunSession } from './session.js';
import type { FlowRef } from './toolbox.js';

/**
 * A person's edited arguments of the gated call the run waits on, run through the node's whole guard
 * chain (catalog, argument schema and flow tightening, parameter provenance, user guards' `before`)
 * as if the model had made the call (docs/approvals.md). What the person changed counts as the user's
 * words (`source: user`); `source: evidence` still needs the evidence. The chain ends at the write
 * gate, which records the edited call as the gated call (with its provenance): that is returned. Any
 * other end refuses the edit: RunError ARGS_REFUSED, `problems` `<code>: <reason>` of the stopping
 * check. Nothing is executed. Unchanged arguments return the gated call as it is.
 */
export async function checkEdit(
  engine: RunEngine,
  session: RunSession,
  ref: FlowRef,
  args: Record<string, unknown>,
): Promise<GatedCall> {
  const node = session.doc.node;
  const gated = node?.gatedCall;
  const flowNode = ref.flow.nodes.find((n) => n.id === node?.nodeId);
  if (!node || !gated || !flowNode) throw new Error(`run ${session.runId} has no gated call to edit`);
  if (canonicalJson(args) === canonicalJson(gated.args)) return gated;
  const changed = Object.entries(args).filter(
    ([key, value]) => canonicalJson(value) !== canonicalJson(gated.args[key] ?? null),
  );
  session.run.editTexts = [
    ...(session.run.editTexts ?? []),
    ...changed.flatMap(([, value]) => leaves(value)),
  ];
  const catalog = await engine.toolbox.catalog(ref);
  const input = createCallInput({
    call: {
      callId: `edit_${gated.fingerprint.slice(0, 12)}`,
      tool: gated.tool,
      rawArgs: JSON.stringify(args),
    },
    flow: ref.flow,
    nodeId: node.nodeId,
    run: session.run,
    node,
    input: session.current.input,
    visible: catalog.visible(flowNode),
    tools: catalog.all,
    services: {
      invoker: catalog.invoker,
      logger: engine.logger,
      now: () => new Date(engine.clock()),
      checkpoint: () => Promise.resolve(),
    },
  });
  const report = await withExpressionSandbox(ref.flow.sandboxExpressions === true, ref.tenant ?? null, () =>
    engine.toolbox.run(input),
  );
  const obs = report.observation;
  const edited = node.gatedCall;
  if (obs.errorCode === 'APPROVAL_REQUIRED' && edited && edited.fingerprint !== gated.fingerprint)
    return edited;
  throw new RunError(
    'ARGS_REFUSED',
    `run ${session.runId}: the edited arguments of ${gated.tool} are refused`,
    {
      runId: session.runId,
      problems: [`${obs.errorCode ?? obs.outcome.name}: ${obs.message(ref.flow.locale)}`],
    },
  );
}

/** The words of a value a person typed: its string leaves, and numbers and booleans as text. */
function leaves(value: unknown): string[] {
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return stringLeaves(value);
}
