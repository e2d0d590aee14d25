import { code } from '../../domain/error-codes.js';
import { hint } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import type { InFlightWrite } from '../../records/run-state.js';
import type { BuiltinRegistry } from '../builtin/registry.js';
import type { CallInput } from '../call.js';
import type { Terminal } from '../compose.js';
import type { CallOutcome, ReadyCall } from '../stages.js';
import type { ProducedCase } from '../produces.js';
import { findRejection } from '../rejected.js';
import type { ToolDescriptor } from '../../domain/tool.js';
import { idempotencyKey } from './keys.js';
import { lookBack, needsLookBack } from './look-back.js';
import { recordEvidence } from './evidence.js';
import { send } from './send.js';
import { callQuestions } from './elicit.js';
import { callTask } from './task-wait.js';
import { authorizationSuspension, personAuthorizes } from './authorize.js';
import { landed } from '../../records/changes.js';

/** What the invoke step itself produces (for docs/observations.md); the invoker's own codes are listed apart. */
export const INVOKE_PRODUCES: readonly ProducedCase[] = [
  {
    producer: 'invoke (builtin)',
    case: 'a builtin threw anything else',
    code: 'TOOL_ERROR',
    next: 'NEXT_TOOL_ERROR',
  },
  {
    producer: 'invoke (look-back)',
    case: 'a write timed out or lost its server and the `recover` look-back found its effect',
    code: null,
  },
];

/**
 * Step 6, the chain's terminal: builtins run here with the call; real tools go to the invoker
 * with the per-call timeout. A write is marked in flight and checkpointed before it is sent
 * (write-ahead, docs/durability.md), sent with its idempotency key in `_meta`, looked back with `recover`
 * when it timed out or lost its server, and unmarked afterwards whatever happened.
 */
export function invokeStep(builtins: BuiltinRegistry): Terminal<ReadyCall> {
  return async function invoke(ctx) {
    if (ctx.descriptor.kind === 'builtin') return runBuiltin(ctx, builtins);
    if (!ctx.isWrite) {
      const questions = callQuestions(ctx);
      const task = callTask(ctx);
      const sending = send(ctx, ctx.descriptor, ctx.args, { elicit: questions.bridge, task: task.bridge });
      const observation = await commitIfSlow(ctx, sending);
      // Its task still works: not executed yet (no evidence); the run waits for the task.
      const waiting = task.effect();
      if (waiting) return { observation, executed: false, effect: waiting };
      const effect = questions.effect();
      // Cancelled for the server's question: not executed (no evidence); the run asks the person.
      if (effect) return { observation, executed: false, effect };
      return unauthorizedEnds(ctx, { observation, executed: true });
    }
    return unauthorizedEnds(ctx, await runWrite(ctx, ctx.descriptor));
  };
}

/**
 * A server that needs a person to authorize (again: a 403 `insufficient_scope` step-up) did not run
 * the call. Nothing the model does changes that. When the runtime suspends for authorization
 * (`services.authorization`, under `serve` and workers) and the server's entry has `auth` with grant
 * authorization_code, the run waits for a person (docs/mcp.md, "Connect") and the model, once it goes
 * on, sees AUTHORIZATION_ANSWERED and calls again. Otherwise the node fails TOOLS_UNAUTHORIZED, naming
 * the server and the login; `retry` after the login asks the model again, which sees this call's
 * MCP_UNAUTHORIZED (docs/mcp.md, "Authorization").
 */
function unauthorizedEnds(ctx: ReadyCall, outcome: CallOutcome): CallOutcome {
  if (outcome.observation.errorCode !== 'MCP_UNAUTHORIZED') return outcome;
  const server = ctx.descriptor.server ?? ctx.call.tool;
  if (ctx.services.authorization === 'suspend' && personAuthorizes(ctx.flow, server))
    return { ...outcome, effect: authorizationSuspension(ctx.flow, server, ctx.call.tool) };
  const reason =
    `MCP server ${server} needs a new authorization for tool ${ctx.call.tool}: ` +
    `run \`agent-runtime mcp login FLOW ${server}\`, then \`agent-runtime retry\` (docs/mcp.md)`;
  return { ...outcome, effect: { kind: 'fail', reason, failure: 'TOOLS_UNAUTHORIZED' } };
}

/** How long a read may run before the step so far is committed while it runs. */
const SLOW_READ_MS = 100;

/**
 * A read is not committed before it is sent: its step (the model's turn and this call) commits once,
 * after it (docs/durability.md), and a crash before that asks the model again, which is safe for a read. A read
 * still running after SLOW_READ_MS has the step so far committed meanwhile, so that watchers see the
 * model's turn while it runs, and a crash resumes with this read, repeated. A failed commit (the run
 * was cancelled or taken over) is thrown once the read is done, like the write-ahead commit's.
 */
async function commitIfSlow(ctx: CallInput, reading: Promise<Observation>): Promise<Observation> {
  const flush: { commit?: Promise<void> } = {};
  const timer = setTimeout(() => {
    flush.commit = ctx.services.checkpoint();
    flush.commit.catch(() => undefined); // awaited below, after the read
  }, SLOW_READ_MS);
  try {
    const observation = await reading;
    if (flush.commit) await flush.commit;
    return observation;
  } finally {
    clearTimeout(timer);
  }
}

async function runBuiltin(ctx: ReadyCall, builtins: BuiltinRegistry): Promise<CallOutcome> {
  const tool = ctx.call.tool;
  const builtin = builtins.get(tool);
  if (builtin?.writeAhead) await ctx.services.checkpoint({ beforeEffect: true });
  try {
    if (!builtin) throw new Error(`no builtin named ${tool}`);
    const result = await builtin.execute(ctx.args, ctx);
    if (result instanceof Observation) return { observation: result, executed: false };
    return { ...result, executed: false };
  } catch (error) {
    const rejection = findRejection(error);
    if (rejection) {
      const observation = Observation.rejected(rejection.errorCode, rejection.reason, rejection.next);
      return { observation, executed: false };
    }
    const detail = error instanceof Error ? error.message : String(error);
    ctx.services.logger.error('TOOL builtin error', { tool, error: detail });
    const observation = Observation.failed(
      code('TOOL_ERROR'),
      code('TOOL_ERROR').reason(ctx.locale, { tool, detail }),
      hint(ctx.locale, 'NEXT_TOOL_ERROR'),
    );
    return { observation, executed: false };
  }
}

async function runWrite(ctx: ReadyCall, descriptor: ToolDescriptor): Promise<CallOutcome> {
  const fp = ctx.fingerprint;
  const key = idempotencyKey(ctx.run.runId, fp);
  const mark: InFlightWrite = {
    fingerprint: fp,
    tool: ctx.call.tool,
    args: ctx.args,
    key,
    nodeId: ctx.nodeId,
    callId: ctx.call.callId,
    startedAt: ctx.services.now().toISOString(),
  };
  // Told to stop (cancel, shutdown) before the write was marked: it is not sent, and the loop records
  // nothing of this call (only a sent write is recorded after a stop).
  if (ctx.services.signal?.aborted && ctx.resending !== true)
    return { observation: notSent(ctx), executed: false };
  ctx.changes.record({ kind: 'inFlight', mark });
  try {
    await ctx.services.checkpoint({ beforeEffect: true });
    const questions = callQuestions(ctx);
    const task = callTask(ctx);
    const obs = await send(ctx, descriptor, ctx.args, {
      meta: { idempotencyKey: key },
      elicit: questions.bridge,
      task: task.bridge,
    });
    // Its task still works: the write is not done yet; the call polls the same task when the run goes on.
    const waiting = task.effect();
    if (waiting) return { observation: obs, executed: false, effect: waiting };
    // Cancelled for the server's question: sent again, with the same idempotency key, once answered.
    const effect = questions.effect();
    if (effect) return { observation: obs, executed: false, effect };
    if (needsLookBack(obs) && ctx.policy?.recover) {
      // The write executed (and failed) before its look-back did: its evidence comes first (pipeline step 9, docs/design.md).
      const own = recordEvidence(ctx, {
        tool: ctx.call.tool,
        args: ctx.args,
        fingerprint: fp,
        observation: obs,
      });
      const looked = await lookBack(ctx, obs.withEvidence(own.id), key, ctx.policy.recover);
      return { ...looked, executed: true };
    }
    return { observation: obs, executed: true };
  } finally {
    ctx.changes.record(landed(mark));
  }
}

function notSent(ctx: CallInput): Observation {
  const c = code('WRITE_NOT_EXECUTED');
  return Observation.deferred(
    c,
    c.reason(ctx.locale, { tool: ctx.call.tool }),
    hint(ctx.locale, 'NEXT_WRITE_NOT_EXECUTED', { tool: ctx.call.tool }),
  );
}
