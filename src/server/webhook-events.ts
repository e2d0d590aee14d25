import type { RunHead, Store, StoredEvent } from '../store/store.js';
import type { WebhookEvent } from './webhook-config.js';
import { WEBHOOK_EVENTS } from './webhook-config.js';

/** How many runs one scan looks at (the newest first). */
const SCAN_LIMIT = 500;

/** A trace event worth a notification, with the run it belongs to. */
export interface Notable {
  /** Stable across processes and restarts: `evt_<runId>_<seq>`. */
  eventId: string;
  type: WebhookEvent;
  event: StoredEvent;
  run: Pick<RunHead, 'runId' | 'tenant' | 'flowId' | 'status'>;
}

const NOTABLE = new Set<string>(WEBHOOK_EVENTS);

/**
 * Finds the notable trace events committed since the last scan, by any process (this server, a CLI,
 * a worker): the store's newest runs whose version moved, read from the last seq seen. The first
 * scan only notes where each run stands (what happened before the server started is not sent).
 */
export class EventScanner {
  private readonly seen = new Map<string, { version: number; lastSeq: number }>();
  private primed = false;

  constructor(private readonly store: () => Promise<Store>) {}

  /** The notable events since the previous scan, oldest first per run. */
  async scan(): Promise<Notable[]> {
    const store = await this.store();
    const heads = store.listRunHeads
      ? await store.listRunHeads({ limit: SCAN_LIMIT })
      : await store.listRuns({ limit: SCAN_LIMIT });
    const found: Notable[] = [];
    for (const head of heads) {
      const before = this.seen.get(head.runId);
      if (before?.version === head.version) continue;
      if (!this.primed) {
        const record = await store.getRun(head.runId);
        this.seen.set(head.runId, { version: head.version, lastSeq: record?.lastSeq ?? 0 });
        continue;
      }
      const events = await store.events(head.runId, before?.lastSeq ?? 0);
      const lastSeq = events.at(-1)?.seq ?? before?.lastSeq ?? 0;
      this.seen.set(head.runId, { version: head.version, lastSeq });
      const run = { runId: head.runId, tenant: head.tenant, flowId: head.flowId, status: head.status };
      for (const event of events) {
        if (!NOTABLE.has(event.type)) continue;
        found.push({
          eventId: `evt_${head.runId}_${event.seq}`,
          type: event.type as WebhookEvent,
          event,
          run,
        });
      }
    }
    this.primed = true;
    return found;
  }
}

/** The pending item an `approval.*` event is about: the `run.suspended` event that carried its id. */
export async function pendingOf(store: Store, runId: string, pendingId: unknown): Promise<unknown> {
  const events = await store.events(runId);
  const suspended = events.filter((e) => e.type === 'run.suspended');
  for (const e of suspended.reverse()) {
    const items = [e.pending, ...((e.items as unknown[] | undefined) ?? [])];
    const found = items.find((p) => (p as { id?: unknown } | undefined)?.id === pendingId);
    if (found) return found;
  }
  return null;
}

/** The JSON body of a notification (docs/notifications.md, "The body"). */
export function notificationBody(
  notable: Notable,
  pending: unknown,
  consoleBase: string | null,
): Record<string, unknown> {
  const { event, run } = notable;
  return {
    id: notable.eventId,
    type: notable.type,
    createdAt: event.ts,
    run,
    ...(event.nodeId !== undefined ? { nodeId: event.nodeId } : {}),
    ...(typeof event.kind === 'string' ? { kind: event.kind } : {}),
    ...(pending !== null ? { pending } : {}),
    ...(notable.type === 'approval.escalated' ? { escalateTo: event.escalateTo } : {}),
    ...(notable.type === 'run.failed' ? { reason: event.reason, message: event.message } : {}),
    ...(notable.type === 'run.completed' && typeof event.reply === 'string' ? { reply: event.reply } : {}),
    consoleUrl: consoleBase ? `${consoleBase}/runs/${encodeURIComponent(run.runId)}` : null,
  };
}
