import type { Observation } from '../domain/observation.js';
import type { CallContext } from './call.js';

/**
 * A step before the call is sent: returns the observation that ends the call (the first one wins), or
 * null to let it go on. Each guard module exports a factory returning a named function of this type.
 */
export type Check = (ctx: CallContext) => Observation | null | Promise<Observation | null>;

/** The chain's terminal: sends the call (or runs the builtin) and returns its observation. */
export type Terminal = (ctx: CallContext) => Promise<Observation>;

/** A step on the way back from the terminal: judges or records the observation the terminal returned. */
export type After = (ctx: CallContext, obs: Observation) => Observation | Promise<Observation>;

/** The steps of a call, each list in the order they run. */
export interface Chain {
  readonly checks: readonly Check[];
  readonly invoke: Terminal;
  readonly after: readonly After[];
}

/**
 * One function of a chain (after Hono's compose, STYLE.md habit 3, flattened: every step here either
 * stops a call before it is sent or looks at its result afterwards, so the chain runs in the order it is
 * written). The checks run in order until one returns an observation, which ends the call; when all
 * pass, the terminal runs and each after-step gets the observation the previous one returned.
 */
export function compose(chain: Chain): (ctx: CallContext) => Promise<Observation> {
  return async function call(ctx) {
    for (const check of chain.checks) {
      const stop = await check(ctx);
      if (stop) return stop;
    }
    let obs = await chain.invoke(ctx);
    for (const after of chain.after) obs = await after(ctx, obs);
    return obs;
  };
}
