import type { Logger } from '../log/logger.js';
import type { Store } from '../store/store.js';
import type { Webhook } from './webhook-config.js';
import { EventScanner, notificationBody, pendingOf, type Notable } from './webhook-events.js';
import { postSigned } from './webhook-send.js';

/** Waits before the 2nd, 3rd, … attempt of a delivery, ms; after the last one it is `failed`. */
export const RETRY_BACKOFF_MS = [1000, 5000, 30_000, 120_000, 600_000, 1_800_000] as const;
/** How many deliveries the log keeps (the oldest settled ones go first). */
const LOG_LIMIT = 1000;

/** One event sent (or being sent) to one webhook: the delivery log's row (GET /v1/webhooks/deliveries). */
export interface Delivery {
  webhook: string;
  eventId: string;
  event: string;
  runId: string;
  tenant: string | null;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** The HTTP status of the last attempt, null when none answered (or none was made yet). */
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  /** When the next attempt is due (pending only). */
  nextAttemptAt: string | null;
}

/** Options of `WebhookDispatcher`. */
export interface DispatcherOptions {
  webhooks: readonly Webhook[];
  store: () => Promise<Store>;
  /** The console's base URL (`--public-url`, else the listening URL), null before listening. */
  consoleBase: () => string | null;
  logger: Logger;
  clock?: () => number;
  /** How often the store is scanned and due retries sent, ms (default 1000). */
  pollMs?: number;
  backoffMs?: readonly number[];
  /** One attempt's timeout, ms (default 10000). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

interface Queued {
  delivery: Delivery;
  hook: Webhook;
  body: string;
  due: number;
  sending: boolean;
}

/**
 * Sends notifications (docs/notifications.md): scans the store for notable trace events of any process,
 * POSTs each to the webhooks subscribed to its type (signed, with its event id), retries a failed attempt
 * with backoff, and keeps a delivery log. Pending deliveries live in this process's memory.
 */
export class WebhookDispatcher {
  private readonly scanner: EventScanner;
  private readonly queue: Queued[] = [];
  private readonly log: Delivery[] = [];
  private readonly clock: () => number;
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;

  constructor(private readonly options: DispatcherOptions) {
    this.scanner = new EventScanner(options.store);
    this.clock = options.clock ?? Date.now;
  }

  /** Notes where the runs stand (nothing before now is sent), then scans every `pollMs`. */
  async start(): Promise<void> {
    await this.scanner.scan();
    this.timer = setInterval(() => void this.tick(), this.options.pollMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The delivery log, newest first: of one tenant (null: runs without a tenant; undefined: all). */
  deliveries(filter: { tenant?: string | null; webhook?: string; limit?: number }): Delivery[] {
    return this.log
      .filter((d) => filter.tenant === undefined || d.tenant === filter.tenant)
      .filter((d) => filter.webhook === undefined || d.webhook === filter.webhook)
      .slice(-(filter.limit ?? 100))
      .reverse()
      .map((d) => ({ ...d }));
  }

  /** One pass: enqueue what the scan found, then send every due delivery. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      for (const notable of await this.scanner.scan()) await this.enqueue(notable);
      await Promise.all(
        this.queue.filter((q) => !q.sending && q.due <= this.clock()).map((q) => this.send(q)),
      );
    } catch (error) {
      this.options.logger.warn('WEBHOOK scanning the store failed; retrying', { error });
    } finally {
      this.ticking = false;
    }
  }

  private async enqueue(notable: Notable): Promise<void> {
    const hooks = this.options.webhooks.filter((h) => subscribed(h, notable));
    if (hooks.length === 0) return;
    const pendingId = notable.event.pendingId;
    const pending =
      notable.type === 'run.suspended'
        ? (notable.event.pending ?? null)
        : notable.type.startsWith('approval.')
          ? await pendingOf(await this.options.store(), notable.run.runId, pendingId)
          : null;
    const body = JSON.stringify(notificationBody(notable, pending, this.options.consoleBase()));
    const now = this.clock();
    for (const hook of hooks) {
      const delivery: Delivery = {
        webhook: hook.name,
        eventId: notable.eventId,
        event: notable.type,
        runId: notable.run.runId,
        tenant: notable.run.tenant,
        status: 'pending',
        attempts: 0,
        lastStatus: null,
        lastError: null,
        createdAt: new Date(now).toISOString(),
        deliveredAt: null,
        nextAttemptAt: new Date(now).toISOString(),
      };
      this.log.push(delivery);
      if (this.log.length > LOG_LIMIT) this.trimLog();
      this.queue.push({ delivery, hook, body, due: now, sending: false });
    }
  }

  private async send(queued: Queued): Promise<void> {
    queued.sending = true;
    const { delivery, hook } = queued;
    const attempt = await postSigned(
      this.options.fetch ?? fetch,
      hook.url,
      hook.secret,
      delivery.eventId,
      queued.body,
      this.options.timeoutMs ?? 10_000,
    );
    delivery.attempts += 1;
    delivery.lastStatus = attempt.status;
    delivery.lastError = attempt.error;
    const backoff = this.options.backoffMs ?? RETRY_BACKOFF_MS;
    if (attempt.ok || delivery.attempts > backoff.length) {
      delivery.status = attempt.ok ? 'delivered' : 'failed';
      delivery.deliveredAt = attempt.ok ? new Date(this.clock()).toISOString() : null;
      delivery.nextAttemptAt = null;
      this.queue.splice(this.queue.indexOf(queued), 1);
      if (!attempt.ok) this.options.logger.error('WEBHOOK delivery failed for good', { ...delivery });
      return;
    }
    queued.due = this.clock() + (backoff[delivery.attempts - 1] ?? 0);
    delivery.nextAttemptAt = new Date(queued.due).toISOString();
    queued.sending = false;
    this.options.logger.warn('WEBHOOK delivery failed; retrying', {
      webhook: hook.name,
      eventId: delivery.eventId,
      error: attempt.error,
    });
  }

  /** Drops the oldest settled rows beyond LOG_LIMIT (pending ones stay). */
  private trimLog(): void {
    const index = this.log.findIndex((d) => d.status !== 'pending');
    if (index >= 0) this.log.splice(index, 1);
  }
}

/** Whether the webhook wants this event: its type, and for an escalation one of its roles. */
function subscribed(hook: Webhook, notable: Notable): boolean {
  if (!hook.events.includes(notable.type)) return false;
  if (notable.type !== 'approval.escalated' || !hook.roles) return true;
  const to = Array.isArray(notable.event.escalateTo) ? notable.event.escalateTo : [];
  return hook.roles.some((role) => to.includes(role));
}
