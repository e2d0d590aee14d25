import type { LiveDelta } from '../api.js';
import { useI18n } from '../i18n.js';

/** A streaming model's turn as it is written (replaced by the timeline's round once it is recorded). */
export function LiveTurn({ delta }: { delta: LiveDelta }) {
  const { t } = useI18n();
  return (
    <section className="card live-turn" aria-live="polite" data-testid="live-turn">
      <h2>{t('liveTurn', { node: delta.nodeId, round: delta.round ?? '?' })}</h2>
      {delta.text && <p className="live-text">{delta.text}</p>}
      {delta.toolCalls.length > 0 && (
        <ul>
          {delta.toolCalls.map((call) => (
            <li key={call.callId}>
              <code>
                {call.tool}({call.args})
              </code>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
