import type { CodeFlowInput } from './typed-outputs.js';

/**
 * Returns the flow as given (docs/flows.md, "Typed outputs"): it only types a code flow, so editors check
 * its keys and `loadFlow` / `runtime.start` infer the outputs' types from its zod output schemas. A
 * flow kept in a variable without it loses its literal node ids (add `as const` instead).
 */
export function defineFlow<const F extends CodeFlowInput>(flow: F): F {
  return flow;
}
