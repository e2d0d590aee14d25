import { useI18n } from '../i18n.js';
import type { CallProgress } from '../trace-model.js';

/** How far a running call got, from its tool's latest progress report (`tool.progress`), live over SSE. */
export function CallProgressBar({ progress }: { progress: CallProgress }) {
  const { t } = useI18n();
  const { total, message } = progress;
  const known = total !== null && total > 0;
  const count = known ? `${progress.progress} / ${total}` : String(progress.progress);
  return (
    <div className="call-progress" data-testid="call-progress">
      {/* Without a total the bar is indeterminate: the tool only said it moved on. */}
      <progress
        aria-label={t('callProgress')}
        {...(known ? { value: Math.min(progress.progress, total), max: total } : {})}
      />
      <span className="call-progress-count">{count}</span>
      {message && <span className="call-progress-message">{message}</span>}
    </div>
  );
}
