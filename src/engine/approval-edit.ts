import { canonicalJson } from '../domain/fingerprint.js';
import { RunError } from '../domain/run-error.js';
import { stringLeaves, type GatedCall } from '../records/run-state.js';
import { code } from '../domain/error-codes.js';
import { hint } from '../domain/hints.js';
import { decideByRule } from '../tools/approval/rules.js';
import type { CallInput } from '../tools/call.js';
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
    engine.toolbox.pipeline(input),
  );
  const obs = report.observation;
  const edited = node.gatedCall;
  if (obs.errorCode === 'APPROVAL_REQUIRED' && edited && edited.fingerprint !== gated.fingerprint) {
    await refuseByRule(input, ref, session, edited);
    return edited;
  }
  throw new RunError(
    'ARGS_REFUSED',
    `run ${session.runId}: the edited arguments of ${gated.tool} are refused`,
    {
      runId: session.runId,
      problems: [`${obs.errorCode ?? obs.outcome.name}: ${obs.message(ref.flow.locale)}`],
    },
  );
}

/**
 * The tool's `reject` rule holds for the edited call: a person cannot approve by editing what the
 * policy never lets through (RunError ARGS_REFUSED, `APPROVAL_DENIED: …`).
 */
async function refuseByRule(
  input: CallInput,
  ref: FlowRef,
  session: RunSession,
  edited: GatedCall,
): Promise<void> {
  const reject = ref.flow.tools[edited.tool]?.approval?.reject;
  if (reject === undefined) return;
  const waiting = session.current.suspension?.pending;
  const pending = {
    tool: edited.tool,
    args: edited.args,
    summary: waiting && 'summary' in waiting ? waiting.summary : '',
    provenance: edited.provenance,
    ...(edited.userProvenance ? { userProvenance: edited.userProvenance } : {}),
    ...(edited.matches ? { matches: edited.matches } : {}),
  };
  if ((await decideByRule(input, { reject }, pending)) !== 'reject') return;
  const locale = ref.flow.locale;
  const comment = hint(locale, 'APPROVAL_RULE_REJECTED');
  throw new RunError(
    'ARGS_REFUSED',
    `run ${session.runId}: the edited arguments of ${edited.tool} are refused`,
    {
      runId: session.runId,
      problems: [
        `APPROVAL_DENIED: ${code('APPROVAL_DENIED').reason(locale, { tool: edited.tool, comment })}`,
      ],
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
