import type { RuntimeErrorCode } from '../../domain/error-codes.js';
import { isUserCodeNumber, USER_CODE_RANGE } from '../../domain/guard-codes.js';
import { Observation } from '../../domain/observation.js';

/**
 * A guard's verdict on a call, made only by `call.reject`, `call.defer` and `call.fail`; opaque to the
 * guard. A verdict built against the guard's contract (empty text, a code of another outcome, an
 * undeclared code or a number outside the reserved range) still comes back, marked bad: the call it
 * was built in never runs, whether the guard returns it or not.
 */
export class GuardVerdict {
  private constructor() {}

  /** @internal Builds a verdict for `made`. */
  static create(made: Ballot, observation: Observation | null, problem: string | null): GuardVerdict {
    const verdict = new GuardVerdict();
    VERDICTS.set(verdict, { observation, problem });
    made.made.add(verdict);
    if (problem !== null) made.bad ??= problem;
    return verdict;
  }
}

interface VerdictData {
  readonly observation: Observation | null;
  readonly problem: string | null;
}

const VERDICTS = new WeakMap<GuardVerdict, VerdictData>();

/** The verdicts one guard built while judging one call, and the first problem among them. */
export interface Ballot {
  readonly made: Set<GuardVerdict>;
  bad: string | null;
}

/** A fresh ballot for one guard and one call. */
export function ballot(): Ballot {
  return { made: new Set(), bad: null };
}

/** What a guard's answer comes to: nothing (the call goes on), an observation, or a problem with it. */
export type Counted =
  { kind: 'pass' } | { kind: 'verdict'; observation: Observation } | { kind: 'bad'; problem: string };

/** Reads a guard's answer against the verdicts it built for this call. */
export function count(made: Ballot, answer: unknown): Counted {
  if (made.bad !== null) return { kind: 'bad', problem: made.bad };
  if (answer === undefined || answer === null || answer === false) return { kind: 'pass' };
  const data = answer instanceof GuardVerdict && made.made.has(answer) ? VERDICTS.get(answer) : undefined;
  if (!data?.observation)
    return {
      kind: 'bad',
      problem: `it returned ${describe(answer)}, not a verdict of call.reject / call.defer / call.fail, nor undefined`,
    };
  return { kind: 'verdict', observation: data.observation };
}

type Method = 'reject' | 'defer' | 'fail';

const OUTCOME_OF: Readonly<Record<Method, RuntimeErrorCode['outcome']>> = {
  reject: 'REJECTED',
  defer: 'DEFERRED',
  fail: 'FAILED',
};

const METHOD_OF: Readonly<Record<string, string>> = {
  REJECTED: 'call.reject',
  DEFERRED: 'call.defer',
  FAILED: 'call.fail (in after)',
};

/** The verdict of `call.<method>(code, reason, next)`: through the observation factories, or marked bad. */
export function verdict(
  made: Ballot,
  codes: ReadonlyMap<string, RuntimeErrorCode>,
  method: Method,
  args: { code: unknown; reason: unknown; next: unknown; data?: unknown },
): GuardVerdict {
  const problem = verdictProblem(codes, method, args);
  if (problem !== null) return GuardVerdict.create(made, null, `call.${method}: ${problem}`);
  const c = codes.get(args.code as string) as RuntimeErrorCode;
  const reason = (args.reason as string).trim();
  const next = (args.next as string).trim();
  try {
    const observation =
      method === 'reject'
        ? Observation.rejected(c, reason, next)
        : method === 'defer'
          ? Observation.deferred(c, reason, next)
          : Observation.failed(c, reason, next, args.data);
    return GuardVerdict.create(made, observation, null);
  } catch (error) {
    return GuardVerdict.create(made, null, `call.${method}: ${(error as Error).message}`);
  }
}

function verdictProblem(
  codes: ReadonlyMap<string, RuntimeErrorCode>,
  method: Method,
  args: { code: unknown; reason: unknown; next: unknown },
): string | null {
  const c = typeof args.code === 'string' ? codes.get(args.code) : undefined;
  if (!c) return `code ${describe(args.code)} is not one of the guard's codes`;
  const wanted = OUTCOME_OF[method];
  if (c.outcome !== wanted)
    return `code ${c.name} is ${c.outcome}, and call.${method} needs a ${wanted} code (use ${METHOD_OF[c.outcome]})`;
  if (!isUserCodeNumber(c.no))
    return `code ${c.name}: number ${String(c.no)} is outside ${USER_CODE_RANGE.min}–${USER_CODE_RANGE.max}`;
  if (typeof args.reason !== 'string' || args.reason.trim() === '') return 'the reason is empty';
  if (typeof args.next !== 'string' || args.next.trim() === '')
    return method === 'defer' ? 'the prerequisite is empty' : 'the next step is empty';
  return null;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}
