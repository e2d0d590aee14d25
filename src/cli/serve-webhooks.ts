import { resolve } from 'node:path';
import type { ServerOptions } from '../server/app.js';
import { loadWebhooks, WebhookConfigError } from '../server/webhook-config.js';
import { UsageError, str, type Parsed } from './args.js';

/**
 * `serve --webhooks FILE` with `--allow-webhook-host HOST` (repeatable): the webhooks of FILE, each on
 * an allowed host (docs/notifications.md); env `AGENT_RUNTIME_WEBHOOK_POLL_MS` sets how often the store
 * is scanned (default 1000). A usage error (exit 2) for an unreadable or invalid file.
 */
export async function webhookOptions(
  parsed: Parsed,
): Promise<Pick<ServerOptions, 'webhooks' | 'webhookPollMs'>> {
  const file = str(parsed, 'webhooks');
  const hosts: unknown = parsed.values['allow-webhook-host'];
  const allow = new Set(
    (Array.isArray(hosts) ? hosts : [])
      .filter((h): h is string => typeof h === 'string')
      .map((h) => h.toLowerCase()),
  );
  if (file === undefined) {
    if (allow.size > 0) throw new UsageError('serve: --allow-webhook-host needs --webhooks FILE');
    return {};
  }
  try {
    const webhooks = await loadWebhooks(resolve(file), allow);
    return { webhooks, ...pollMs(process.env.AGENT_RUNTIME_WEBHOOK_POLL_MS) };
  } catch (error) {
    if (error instanceof WebhookConfigError)
      throw new UsageError(`serve: --webhooks: ${error.message}`, { cause: error });
    throw error;
  }
}

function pollMs(raw: string | undefined): Pick<ServerOptions, 'webhookPollMs'> {
  if (raw === undefined || raw === '') return {};
  if (!/^\d{2,9}$/.test(raw) || Number(raw) < 50)
    throw new UsageError(
      `serve: AGENT_RUNTIME_WEBHOOK_POLL_MS must be a number of ms ≥ 50, not ${JSON.stringify(raw)}`,
    );
  return { webhookPollMs: Number(raw) };
}
