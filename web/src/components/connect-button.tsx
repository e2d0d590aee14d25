import { useState } from 'react';
import { ApiError, type FollowUpPending, type RunSummary } from '../api.js';
import { useI18n } from '../i18n.js';
import { useSession } from '../session.js';

/**
 * The card of a run waiting for a person to authorize an MCP server (docs/console.md, "Connect"): the
 * "Connect <server>" button starts the authorization on the server and opens the authorization server's
 * page in a new window; its callback lands on `serve`, which continues the run, and the page follows
 * it live. When the stored tokens already work the run continues at once.
 */
export function ConnectCard({
  runId,
  pending,
  onAnswered,
}: {
  runId: string;
  pending: FollowUpPending & { authorization: { server: string } };
  onAnswered: (s: RunSummary) => void;
}) {
  const { t } = useI18n();
  const { api, canAct, me, roleKnown } = useSession();
  const server = pending.authorization.server;
  const [busy, setBusy] = useState(false);
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const connect = (): void => {
    setBusy(true);
    setError(null);
    // Opened within the click, so that no popup blocker stops it; pointed at the URL once it is known.
    const opened = window.open('', '_blank');
    api.authorize(runId, pending.id).then(
      (started) => {
        setBusy(false);
        if (started.authorized && started.run) {
          opened?.close();
          onAnswered(started.run);
          return;
        }
        const target = started.authorizationUrl ?? null;
        setUrl(target);
        if (opened && target) opened.location.href = target;
      },
      (failure: unknown) => {
        setBusy(false);
        opened?.close();
        if (failure instanceof ApiError && failure.status === 409) setError(t('conflict'));
        else
          setError(
            t('actionFailed', { message: failure instanceof Error ? failure.message : String(failure) }),
          );
      },
    );
  };
  return (
    <section className="card decision connect" aria-labelledby="connect-title" data-testid="connect-card">
      <h2 id="connect-title">{t('connectTitle', { server })}</h2>
      <p>{t('connectIntro', { server })}</p>
      {canAct ? (
        <div className="buttons">
          <button type="button" disabled={busy} onClick={connect} data-testid="connect-button">
            {busy ? t('connectOpening') : t('connectButton', { server })}
          </button>
        </div>
      ) : (
        <p className="note">{roleKnown ? t('viewerCannotDecide', { role: me.role }) : t('roleUnknown')}</p>
      )}
      {url && (
        <p className="note" data-testid="connect-waiting">
          {t('connectWaiting')}{' '}
          <a href={url} target="_blank" rel="noopener noreferrer">
            {t('connectLink')}
          </a>
        </p>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  );
}
