import type { CallOutcome, Stop } from './stages.js';

/**
 * A step before the call is sent: returns what it learnt about the call (handed to the steps after
 * it), or a `Stop` that ends the call with an observation. Each guard module exports a factory
 * returning a named function of this type.
 */
export type Check<Needs, Learns> = (
  call: Needs,
) => Learns | Stop<Partial<Learns>> | Promise<Learns | Stop<Partial<Learns>>>;

/** The chain's terminal: sends the call (or runs the builtin). */
export type Terminal<Needs> = (call: Needs) => Promise<CallOutcome>;

/** A step on the way back from the terminal: judges or records what the call came to. */
export type After<Needs> = (call: Needs, outcome: CallOutcome) => CallOutcome | Promise<CallOutcome>;

/** How a call through a chain ended: `reached` holds what the steps learnt before it ended. */
export interface Settled<Call> {
  readonly outcome: CallOutcome;
  readonly reached: Partial<Call>;
  readonly reused: boolean;
}

/** A chain under construction: the checks so far; `Call` is what they have learnt. */
export interface Chain<Input, Call> {
  check<Learns extends object>(step: Check<Call, Learns>): Chain<Input, Call & Learns>;
  invoke(step: Terminal<Call>): Invoking<Input, Call>;
}

/** A chain with its terminal; after-steps run in the order they are added. */
export interface Invoking<Input, Call> {
  after(step: After<Call>): Invoking<Input, Call>;
  run(input: Input): Promise<Settled<Call>>;
  /** Ends the chain with its one result, built from how each call ended. */
  settle<Result>(toResult: (settled: Settled<Call>) => Result): Settling<Input, Result>;
}

/**
 * A stage that sees every call from its start to its end, stopped, sent or thrown, and changes nothing
 * (telemetry, the log). It is started before the first check; what it returns is told how the call ended.
 */
export type Watch<Input, Result> = (input: Input) => {
  ended(result: Result): void;
  threw(error: unknown): void;
};

/**
 * A chain that returns one result, with its watch stages: started in the order they are added before
 * the first check, and told how the call ended in the reverse order (the first added sees the others).
 */
export interface Settling<Input, Result> {
  watch(step: Watch<Input, Result>): Settling<Input, Result>;
  run(input: Input): Promise<Result>;
}

/** Whether a step answered with a promise (or another thenable) rather than its value. */
function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown }).then === 'function';
}

function isStop(value: object): value is Stop {
  return 'stop' in value;
}

type AnyCheck = (call: object) => object | Promise<object>;
type AnyTerminal = (call: object) => Promise<CallOutcome>;
type AnyAfter = (call: object, outcome: CallOutcome) => CallOutcome | Promise<CallOutcome>;

/**
 * Starts a chain (after Hono's compose, flattened: every step either stops a call
 * before it is sent or looks at what it came to afterwards, so the chain runs in the order it is
 * written). The checks run in order, each getting the input plus everything learnt before it, until
 * one stops the call; when all pass, the terminal runs and each after-step gets the outcome the
 * previous one returned. The types make a step that needs what no earlier step learns a compile error.
 */
export function chain<Input extends object>(): Chain<Input, Input> {
  return building<Input, Input>([]);
}

function building<Input extends object, Call>(checks: readonly AnyCheck[]): Chain<Input, Call> {
  return {
    check: <Learns extends object>(step: Check<Call, Learns>) =>
      building<Input, Call & Learns>([...checks, step as unknown as AnyCheck]),
    invoke: (step) => invoking<Input, Call>(checks, step as unknown as AnyTerminal, []),
  };
}

function invoking<Input extends object, Call>(
  checks: readonly AnyCheck[],
  terminal: AnyTerminal,
  afters: readonly AnyAfter[],
): Invoking<Input, Call> {
  const run = async (input: Input): Promise<Settled<Call>> => {
    // One object per call gathers what the checks learn (the input itself is left as it was); a step
    // that answers synchronously is not awaited, so a call costs no microtask turn per step.
    const call: object = { ...input };
    for (const check of checks) {
      const answer = check(call);
      const verdict = isThenable(answer) ? await answer : answer;
      if (isStop(verdict)) {
        const reached = { ...call, ...(verdict.learnt ?? {}) } as Partial<Call>;
        const outcome = { observation: verdict.stop, executed: false };
        return { outcome, reached, reused: verdict.reused === true };
      }
      Object.assign(call, verdict);
    }
    let outcome = await terminal(call);
    for (const after of afters) {
      const next = after(call, outcome);
      outcome = isThenable(next) ? await next : next;
    }
    return { outcome, reached: call, reused: false };
  };
  return {
    after: (step) => invoking<Input, Call>(checks, terminal, [...afters, step as unknown as AnyAfter]),
    run,
    settle: (toResult) => settling(run, toResult, []),
  };
}

function settling<Input, Call, Result>(
  run: (input: Input) => Promise<Settled<Call>>,
  toResult: (settled: Settled<Call>) => Result,
  watches: readonly Watch<Input, Result>[],
): Settling<Input, Result> {
  return {
    watch: (step) => settling(run, toResult, [...watches, step]),
    async run(input) {
      const watching = watches.map((watch) => watch(input));
      let result: Result;
      try {
        result = toResult(await run(input));
      } catch (error) {
        for (let i = watching.length - 1; i >= 0; i--) watching[i]!.threw(error);
        throw error;
      }
      for (let i = watching.length - 1; i >= 0; i--) watching[i]!.ended(result);
      return result;
    },
  };
}
