import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.js';
import type { WebhookDelivery } from '../records/webhook-delivery.js';
import {
  MemoryOutbox,
  type AttemptResult,
  type ClaimedDelivery,
  type DeliveryFilter,
  type NewDelivery,
  type WebhookOutbox,
} from '../store/outbox.js';
import type { Store } from '../store/store.js';
import type { Webhook } from './webhook-config.js';
import { EventScanner, notificationBody, pendingOf, type Notable } from './webhook-events.js';
import { postSigned } from './webhook-send.js';

/** Waits before the 2nd, 3rd, … attempt of a delivery, ms; after the last one it is `failed`. */
export const RETRY_BACKOFF_MS = [1000, 5000, 30_000, 120_000, 600_000, 1_800_000] as const;
/** How many deliveries the log keeps (the oldest settled ones go first). */
const LOG_LIMIT = 1000;
/** How many due deliveries one pass claims. */
const CLAIM_LIMIT = 50;

/** One event sent (or being sent) to one webhook: the delivery log's row (GET /v1/webhooks/deliveries). */
export type Delivery = WebhookDelivery;

/** Options of `WebhookDispatcher`. */
export interface DispatcherOptions {
  webhooks: readonly Webhook[];
  store: () => Promise<Store>;
  /** The console's base URL (`--public-url`, else the listening URL), null before listening. */
  consoleBase: () => string | null;
  logger: Logger;
  clock?: () => number;
  /** How often the store is scanned and due deliveries sent, ms (default 1000). */
  pollMs?: number;
  backoffMs?: readonly number[];
  /** One attempt's timeout, ms (default 10000). */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Who claims deliveries (default: a random id of this dispatcher). */
  owner?: string;
}

/**
 * Sends notifications (docs/notifications.md): scans the store for notable trace events of any process
 * and adds a delivery per subscribed webhook to the store's outbox (once per webhook and event id,
 * whichever process saw it first); then claims the due deliveries with a lease, POSTs each (signed, with
 * its event id) and records the attempt: delivered, retried later with backoff, or failed. A delivery
 * left pending by a process that stopped is sent by the next one, once its lease has run out. A store
 * without an outbox keeps them in this process's memory.
 */
export class WebhookDispatcher {
  private readonly scanner: EventScanner;
  private readonly clock: () => number;
  private readonly owner: string;
  private readonly ownOutbox = new MemoryOutbox();
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;

  constructor(private readonly options: DispatcherOptions) {
    this.scanner = new EventScanner(options.store);
    this.clock = options.clock ?? Date.now;
    this.owner = options.owner ?? `webhooks_${randomUUID()}`;
  }

  /** Notes where the runs stand (nothing before now is sent), sends what is due, then works every `pollMs`. */
  async start(): Promise<void> {
    await this.scanner.scan();
    this.timer = setInterval(() => void this.tick(), this.options.pollMs ?? 1000);
    this.timer.unref();
    void this.tick();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The delivery log, newest first: of one tenant (null: runs without a tenant; undefined: all). */
  async deliveries(filter: DeliveryFilter): Promise<Delivery[]> {
    return (await this.outbox()).list(filter);
  }

  /** One pass: add what the scan found to the outbox, then send every due delivery this process claims. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const outbox = await this.outbox();
      const found = await this.scanner.scan();
      for (const notable of found) await outbox.add(await this.deliveriesOf(notable));
      if (found.length > 0) await outbox.prune(LOG_LIMIT);
      const names = this.options.webhooks.map((h) => h.name);
      const now = this.clock();
      const claimed = await outbox.claim(names, this.owner, now, this.leaseMs(), CLAIM_LIMIT);
      await Promise.all(claimed.map((d) => this.send(outbox, d)));
    } catch (error) {
      this.options.logger.warn('WEBHOOK scanning the store failed; retrying', { error });
    } finally {
      this.ticking = false;
    }
  }

  private async outbox(): Promise<WebhookOutbox> {
    return (await this.options.store()).outbox ?? this.ownOutbox;
  }

  /** A claim outlives one attempt (its timeout) by a margin: a live process settles before it runs out. */
  private leaseMs(): number {
    return (this.options.timeoutMs ?? 10_000) + 10_000;
  }

  private async deliveriesOf(notable: Notable): Promise<NewDelivery[]> {
    const hooks = this.options.webhooks.filter((h) => subscribed(h, notable));
    if (hooks.length === 0) return [];
    const pendingId = notable.event.pendingId;
    const pending =
      notable.type === 'run.suspended'
        ? (notable.event.pending ?? null)
        : notable.type.startsWith('approval.')
          ? await pendingOf(await this.options.store(), notable.run.runId, pendingId)
          : null;
    const body = JSON.stringify(notificationBody(notable, pending, this.options.consoleBase()));
    const createdAt = new Date(this.clock()).toISOString();
    return hooks.map((hook) => ({
      webhook: hook.name,
      eventId: notable.eventId,
      event: notable.type,
      runId: notable.run.runId,
      tenant: notable.run.tenant,
      createdAt,
      body,
    }));
  }

  private async send(outbox: WebhookOutbox, delivery: ClaimedDelivery): Promise<void> {
    const hook = this.options.webhooks.find((h) => h.name === delivery.webhook);
    if (!hook) return;
    const attempt = await postSigned(
      this.options.fetch ?? fetch,
      hook.url,
      hook.secret,
      delivery.eventId,
      delivery.body,
      this.options.timeoutMs ?? 10_000,
    );
    const attempts = delivery.attempts + 1;
    const backoff = this.options.backoffMs ?? RETRY_BACKOFF_MS;
    const settled = attempt.ok || attempts > backoff.length;
    const now = this.clock();
    const result: AttemptResult = {
      status: attempt.ok ? 'delivered' : settled ? 'failed' : 'pending',
      attempts,
      lastStatus: attempt.status,
      lastError: attempt.error,
      deliveredAt: attempt.ok ? new Date(now).toISOString() : null,
      nextAttemptAt: settled ? null : new Date(now + (backoff[attempts - 1] ?? 0)).toISOString(),
    };
    const key = { webhook: delivery.webhook, eventId: delivery.eventId };
    if (!(await outbox.settle(key, this.owner, result))) {
      this.options.logger.warn('WEBHOOK delivery outlived its claim; another process may send it again', key);
      return;
    }
    if (result.status === 'failed') {
      this.options.logger.error('WEBHOOK delivery failed for good', {
        ...delivery,
        ...result,
        body: undefined,
      });
    } else if (result.status === 'pending') {
      this.options.logger.warn('WEBHOOK delivery failed; retrying', { ...key, error: attempt.error });
    }
  }
}

/** Whether the webhook wants this event: its type, and for an escalation one of its roles. */
function subscribed(hook: Webhook, notable: Notable): boolean {
  if (!hook.events.includes(notable.type)) return false;
  if (notable.type !== 'approval.escalated' || !hook.roles) return true;
  const to = Array.isArray(notable.event.escalateTo) ? notable.event.escalateTo : [];
  return hook.roles.some((role) => to.includes(role));
}
