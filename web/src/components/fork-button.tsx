import { useState } from 'react';
import { useI18n } from '../i18n.js';
import { hrefOf, navigate } from '../router.js';
import { useSession } from '../session.js';

/**
 * "Re-run from here" on a timeline call, for operators: forks the run after the call's event
 * (`POST /v1/runs/{id}/fork`) and opens the new run. The server refuses a call that did not end its
 * round, naming the events a fork can continue from; that message is shown here.
 */
export function ForkButton({ runId, seq }: { runId: string; seq: number }) {
  const { t } = useI18n();
  const { api, canAct } = useSession();
  const [error, setError] = useState<string | null>(null);
  if (!canAct) return null;
  const fork = (): void => {
    if (!window.confirm(t('confirmFork'))) return;
    api.fork(runId, seq).then(
      (summary) => navigate(hrefOf({ page: 'run', runId: summary.runId })),
      (failure: unknown) =>
        setError(
          t('actionFailed', { message: failure instanceof Error ? failure.message : String(failure) }),
        ),
    );
  };
  return (
    <span className="fork">
      <button type="button" onClick={fork} data-testid="fork-here">
        {t('forkHere')}
      </button>
      {error && (
        <span role="alert" className="error">
          {' '}
          {error}
        </span>
      )}
    </span>
  );
}
