import { hint, list } from '../domain/hints.js';
import type { Locale } from '../domain/locale.js';

/**
 * The phase hint states contract facts only (`phase.hint` in docs/trace.md): nothing when the node has no required
 * outputs; otherwise the required keys not written yet, or that all are written. It never infers
 * progress ("query", "write outputs", "you may finish").
 */
export function phaseHint(
  locale: Locale,
  contract: Record<string, { required: boolean }>,
  written: Record<string, unknown>,
): string | null {
  const required = Object.entries(contract)
    .filter(([, c]) => c.required)
    .map(([key]) => key);
  if (required.length === 0) return null;
  const missing = required.filter((key) => !(key in written));
  if (missing.length === 0) return hint(locale, 'PHASE_ALL_WRITTEN');
  return hint(locale, 'PHASE_MISSING', { keys: list(locale, missing) });
}
