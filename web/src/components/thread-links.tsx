/** Links from the runs list to the threads: the list of threads, and a run's own thread. */
import { useThreadTexts } from '../thread-texts.js';
import { Link } from './link.js';

/** The link to the list of threads. */
export function ThreadsLink() {
  const tt = useThreadTexts();
  return (
    <p className="threads-link">
      <Link href="/threads">{tt('threadsLink')}</Link>
    </p>
  );
}

/** ` · thread ID` linking to the run's thread, or nothing for a run outside a thread. */
export function ThreadLink({ threadId }: { threadId: string | undefined }) {
  const tt = useThreadTexts();
  if (!threadId) return null;
  return (
    <>
      {' · '}
      <Link href={`/threads/${encodeURIComponent(threadId)}`} data-testid="run-thread">
        {tt('inThread', { id: threadId })}
      </Link>
    </>
  );
}
