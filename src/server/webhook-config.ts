import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { endpointOf } from './request-policy.js';

/** The events a webhook may subscribe to (docs/notifications.md). */
export const WEBHOOK_EVENTS = [
  'run.suspended',
  'run.completed',
  'run.failed',
  'approval.expired',
  'approval.escalated',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const EntrySchema = z.strictObject({
  url: z.string().refine((url) => endpointOf(url) !== null, { message: 'an http(s) URL' }),
  events: z.array(z.enum(WEBHOOK_EVENTS)).min(1),
  secret: z.string().min(16, { message: 'at least 16 characters (the HMAC key)' }),
  /** Only escalations addressed to one of these roles (`escalateTo`); absent: every one. */
  roles: z.array(z.string().min(1)).min(1).optional(),
  /** A name for the delivery log (default: the URL's host). */
  name: z.string().min(1).max(100).optional(),
});

/** One webhook of the `serve --webhooks FILE` list. */
export interface Webhook {
  name: string;
  url: string;
  events: readonly WebhookEvent[];
  secret: string;
  roles?: readonly string[];
}

/** A webhooks file that cannot be used: the message names the file and each problem. */
export class WebhookConfigError extends Error {
  override readonly name = 'WebhookConfigError';
}

/**
 * Parses the webhooks list (JSON or YAML already read): `[{url, events, secret, roles?, name?}]`.
 * Each URL's host must be in `allowHosts` (HOST, any port, or HOST:PORT): WebhookConfigError otherwise.
 */
export function parseWebhooks(data: unknown, source: string, allowHosts: ReadonlySet<string>): Webhook[] {
  const parsed = z.array(EntrySchema).safeParse(data);
  if (!parsed.success) throw new WebhookConfigError(`${source}: ${z.prettifyError(parsed.error)}`);
  const names = new Set<string>();
  return parsed.data.map((entry, i) => {
    const endpoint = endpointOf(entry.url);
    if (!endpoint || (!allowHosts.has(endpoint.host) && !allowHosts.has(endpoint.hostPort)))
      throw new WebhookConfigError(
        `${source}: [${i}].url: host ${JSON.stringify(endpoint?.hostPort ?? entry.url)} is not allowed; give it with --allow-webhook-host HOST (or HOST:PORT)`,
      );
    const name = entry.name ?? endpoint.hostPort;
    if (names.has(name))
      throw new WebhookConfigError(
        `${source}: [${i}]: two webhooks are named ${JSON.stringify(name)}; give each a distinct name`,
      );
    names.add(name);
    return { ...entry, name };
  });
}

/** Reads and parses a webhooks file (YAML or JSON); WebhookConfigError when unreadable or invalid. */
export async function loadWebhooks(file: string, allowHosts: ReadonlySet<string>): Promise<Webhook[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new WebhookConfigError(`cannot read webhooks file ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    throw new WebhookConfigError(
      `webhooks file ${file} is not valid YAML/JSON: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  return parseWebhooks(data, file, allowHosts);
}
