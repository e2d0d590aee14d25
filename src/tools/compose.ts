import type { Observation } from '../domain/observation.js';
import type { CallContext } from './call.js';

/** A guard: returns an observation to end the chain, or calls `next()` and may rewrite its result. */
export type Guard = (ctx: CallContext, next: () => Promise<Observation>) => Promise<Observation>;

/**
 * Composes guards into one function, outermost first (Hono's compose, STYLE.md habit 3).
 * `terminal` runs when every guard called `next()`.
 */
export function compose(guards: readonly Guard[], terminal: (ctx: CallContext) => Promise<Observation>) {
  return (ctx: CallContext): Promise<Observation> => {
    let index = -1;
    const dispatch = (i: number): Promise<Observation> => {
      if (i <= index) return Promise.reject(new Error('next() called more than once in a guard'));
      index = i;
      const guard = guards[i];
      if (!guard) return terminal(ctx);
      return guard(ctx, () => dispatch(i + 1));
    };
    return dispatch(0);
  };
}
