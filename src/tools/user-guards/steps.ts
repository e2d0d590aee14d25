import { frozenCopy } from '../../domain/frozen.js';
import { code, type RuntimeErrorCode } from '../../domain/error-codes.js';
import { hint } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import type { After, Check } from '../compose.js';
import { limitsOf } from '../context.js';
import type { ProducedCase } from '../produces.js';
import type { CallOutcome, ParsedCall, SourcedCall } from '../stages.js';
import {
  guardCodes,
  type AfterCall,
  type BeforeCall,
  type Guard,
  type GuardCallView,
  type GuardCodes,
} from './define.js';
import { ballot, count, verdict, type Ballot } from './verdict.js';

/** What the user-guard steps produce themselves (for docs/observations.md); the guards' own codes are theirs. */
export const USER_GUARDS_PRODUCES: readonly ProducedCase[] = [
  {
    producer: 'user guards',
    case: 'a user guard’s `before` or `after` threw (or its promise rejected)',
    code: 'GUARD_ERROR',
    next: 'NEXT_GUARD_ERROR',
  },
  {
    producer: 'user guards',
    case: 'a user guard built or returned a verdict against its contract (empty reason or next step, a code of another outcome or not its own, not a verdict)',
    code: 'GUARD_VERDICT_INVALID',
    next: 'NEXT_GUARD_ERROR',
  },
];

/** A guard with its codes as runtime code objects. */
interface Prepared {
  readonly guard: Guard;
  readonly codes: ReadonlyMap<string, RuntimeErrorCode>;
}

/** The guards once, with their codes built. */
export function prepareGuards(guards: readonly Guard[]): readonly Prepared[] {
  return guards.map((guard) => ({ guard, codes: guardCodes(guard) }));
}

const NOTHING = Object.freeze({});

/**
 * Step 3b (docs/design.md): each user guard's `before`, in the order given, on a call of a real tool
 * whose arguments and provenance passed. The first verdict ends the call (it is never sent); a guard
 * that throws or breaks its contract ends it FAILED (GUARD_ERROR, GUARD_VERDICT_INVALID). Learns nothing.
 */
export function userGuardsBefore(guards: readonly Prepared[]): Check<SourcedCall, object> {
  const asked = guards.filter((g) => g.guard.before);
  return async function userGuards(ctx) {
    if (asked.length === 0 || ctx.descriptor.kind === 'builtin') return NOTHING;
    const view = frozenView(ctx);
    for (const { guard, codes } of asked) {
      const made = ballot();
      const call = Object.create(view, {
        reject: method(made, codes, 'reject'),
        defer: method(made, codes, 'defer'),
      }) as BeforeCall<GuardCodes>;
      const stop = await consult(ctx, guard, made, () => guard.before?.(Object.freeze(call)));
      if (stop) return { stop };
    }
    return NOTHING;
  };
}

/**
 * Step 7b (docs/design.md): each user guard's `after`, in order, on a SUCCESS of a real tool that was
 * sent, after its response contract. The first `call.fail` turns it into FAILED with the guard's code
 * (the tool's data kept: it did run); a guard that throws or breaks its contract makes it FAILED too.
 */
export function userGuardsAfter(guards: readonly Prepared[]): After<ParsedCall> {
  const asked = guards.filter((g) => g.guard.after);
  return async function userGuardsAfter(ctx, outcome) {
    const obs = outcome.observation;
    if (asked.length === 0 || ctx.descriptor.kind === 'builtin' || !outcome.executed || !obs.ok)
      return outcome;
    const view = frozenView(ctx);
    const result = Object.freeze({ summary: obs.reason, data: frozenCopy(obs.data) });
    for (const { guard, codes } of asked) {
      const made = ballot();
      const call = Object.create(view, {
        result: { value: result, enumerable: true },
        fail: method(made, codes, 'fail', obs.data),
      }) as AfterCall<GuardCodes>;
      const stop = await consult(ctx, guard, made, () => guard.after?.(Object.freeze(call)), obs.data);
      if (stop) return withObservation(outcome, obs.evidenceId ? stop.withEvidence(obs.evidenceId) : stop);
    }
    return outcome;
  };
}

function withObservation(outcome: CallOutcome, observation: Observation): CallOutcome {
  return { ...outcome, observation };
}

function method(
  made: Ballot,
  codes: ReadonlyMap<string, RuntimeErrorCode>,
  name: 'reject' | 'defer' | 'fail',
  data?: unknown,
): PropertyDescriptor {
  return {
    enumerable: false,
    value: (c: unknown, reason: unknown, next: unknown) =>
      verdict(made, codes, name, { code: c, reason, next, ...(data !== undefined ? { data } : {}) }),
  };
}

/** Asks one guard; null to go on, else the observation that ends (or replaces) the call. */
async function consult(
  ctx: ParsedCall,
  guard: Guard,
  made: Ballot,
  ask: () => unknown,
  data?: unknown,
): Promise<Observation | null> {
  let answer: unknown;
  try {
    answer = await bounded(ask, limitsOf(ctx).toolTimeoutMs, ctx.services.signal);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    ctx.services.logger.error('TOOL guard error', { guard: guard.name, tool: ctx.call.tool, error: detail });
    return failure(ctx, guard, 'GUARD_ERROR', detail, data);
  }
  const counted = count(made, answer);
  if (counted.kind === 'pass') return null;
  if (counted.kind === 'verdict') return counted.observation;
  ctx.services.logger.error('TOOL guard verdict invalid', {
    guard: guard.name,
    tool: ctx.call.tool,
    error: counted.problem,
  });
  return failure(ctx, guard, 'GUARD_VERDICT_INVALID', counted.problem, data);
}

/**
 * A guard's answer, waited for as long as a tool call may take (the node's `toolTimeoutMs`) and no
 * longer than the run: a guard that never answers fails the call instead of holding the run.
 */
async function bounded(
  ask: () => unknown,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const answer = ask();
  if (typeof (answer as { then?: unknown } | null)?.then !== 'function') return answer;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${timeoutMs} ms (toolTimeoutMs)`)),
      timeoutMs,
    );
    onAbort = () => reject(new Error('the run was stopped while the guard ran'));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([answer, stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

function failure(
  ctx: ParsedCall,
  guard: Guard,
  name: 'GUARD_ERROR' | 'GUARD_VERDICT_INVALID',
  detail: string,
  data: unknown,
): Observation {
  const c = code(name);
  const params = { guard: guard.name, tool: ctx.call.tool, detail };
  return Observation.failed(c, c.reason(ctx.locale, params), hint(ctx.locale, 'NEXT_GUARD_ERROR'), data);
}

/** The call as guards see it; each part copied and frozen on first use, shared by the guards of one call. */
function frozenView(ctx: ParsedCall): GuardCallView {
  const cache: Partial<Record<'args' | 'input' | 'node' | 'evidence', unknown>> = {};
  const lazy = (key: keyof typeof cache, make: () => unknown): PropertyDescriptor => ({
    enumerable: true,
    get: () => (key in cache ? cache[key] : (cache[key] = frozenCopy(make()))),
  });
  return Object.freeze(
    Object.create(null, {
      tool: { value: ctx.call.tool, enumerable: true },
      kind: { value: ctx.descriptor.kind, enumerable: true },
      write: { value: ctx.isWrite, enumerable: true },
      runId: { value: ctx.run.runId, enumerable: true },
      locale: { value: ctx.locale, enumerable: true },
      args: lazy('args', () => ctx.args),
      input: lazy('input', () => ctx.input ?? null),
      node: lazy('node', () => ({ id: ctx.nodeId, outputs: ctx.node.outputs })),
      evidence: lazy('evidence', () => ctx.run.evidence),
    }),
  ) as GuardCallView;
}
