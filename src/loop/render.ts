import type { Locale } from '../domain/locale.js';
import { hint } from '../domain/hints.js';
import type { Observation } from '../domain/observation.js';

/**
 * How non-success observations reach the model: `typed` (the default) with outcome, code, reason and
 * next step; `plain` as one generic error text, the way frameworks without typed observations report a
 * failed tool (an eval ablation, docs/evals.md). Successes read the same in both.
 */
export type ObservationStyle = 'typed' | 'plain';

/**
 * The tool message the model reads for an observation: outcome and code, the message
 * (`<原因>。下一步：<下一步>`), the evidence id, and the payload as JSON when there is one. A plain
 * success of `tool` (the message only says the call of `tool` succeeded) reads `[SUCCESS ev_1]` (its
 * evidence id) without that message: the tool message already answers that call. In the `plain` style a non-success
 * observation is only the generic error text (`PLAIN_ERROR`).
 */
export function renderObservation(
  obs: Observation,
  locale: Locale,
  style: ObservationStyle = 'typed',
  tool?: string,
): string {
  if (style === 'plain' && !obs.ok) return hint(locale, 'PLAIN_ERROR');
  const head = obs.code ? `[${obs.outcome.name} ${obs.code.name}]` : `[${obs.outcome.name}]`;
  const evidence = obs.evidenceId ? hint(locale, 'EVIDENCE', { id: obs.evidenceId }) : '';
  const bare = obs.ok && tool !== undefined && obs.reason === hint(locale, 'SUCCESS', { tool });
  const lines = [
    bare
      ? `[${obs.outcome.name}${obs.evidenceId ? ` ${obs.evidenceId}` : ''}]`
      : `${head} ${obs.message(locale)}${evidence ? ` (${evidence})` : ''}`,
  ];
  if (obs.data !== undefined && obs.data !== null)
    lines.push(typeof obs.data === 'string' ? obs.data : JSON.stringify(obs.data));
  return lines.join('\n');
}

/** The tool message of a call skipped because an earlier call of its wave did not succeed. */
export function renderSkipped(locale: Locale): string {
  return `[SKIPPED] ${hint(locale, 'SKIPPED')}`;
}
