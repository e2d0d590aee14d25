import type { ObservationStyle } from '../loop/render.js';

/**
 * Switches that take parts of the runtime away to measure what they buy (docs/evals.md, "Ablation").
 * Both default to the full runtime; they exist for evals, not for production runs.
 */
export interface Ablation {
  /** `plain`: every non-success observation reaches the model as one generic error text. */
  observations?: ObservationStyle;
  /**
   * `off`: the provenance checks of parameter contracts (`source: evidence` / `user`) and the
   * fingerprint breaker are skipped; `enum`, the argument policy and the write gate stay.
   */
  guards?: 'on' | 'off';
}

/** True when the ablation switches the provenance and fingerprint checks off. */
export function guardsOff(ablation: Ablation | undefined): boolean {
  return ablation?.guards === 'off';
}
