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
}

function isStop(value: object): value is Stop {
  return 'stop' in value;
}

type AnyCheck = (call: object) => object | Promise<object>;
type AnyTerminal = (call: object) => Promise<CallOutcome>;
type AnyAfter = (call: object, outcome: CallOutcome) => CallOutcome | Promise<CallOutcome>;

/**
 * Starts a chain (after Hono's compose, STYLE.md habit 3, flattened: every step either stops a call
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
  return {
    after: (step) => invoking<Input, Call>(checks, terminal, [...afters, step as unknown as AnyAfter]),
    async run(input) {
      let call: object = input;
      for (const check of checks) {
        const verdict = await check(call);
        if (isStop(verdict)) {
          const reached = { ...call, ...(verdict.learnt ?? {}) } as Partial<Call>;
          const outcome = { observation: verdict.stop, executed: false };
          return { outcome, reached, reused: verdict.reused === true };
        }
        call = { ...call, ...verdict };
      }
      let outcome = await terminal(call);
      for (const after of afters) outcome = await after(call, outcome);
      return { outcome, reached: call, reused: false };
    },
  };
}
