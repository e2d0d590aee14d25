import { createHmac } from 'node:crypto';

/** The signature header: `sha256=<hex HMAC-SHA256 of the raw body with the webhook's secret>`. */
export const SIGNATURE_HEADER = 'X-Agent-Runtime-Signature';
/** The event id header: the same for every attempt of one event to one webhook (de-duplication). */
export const EVENT_HEADER = 'X-Agent-Runtime-Event';

/** `sha256=` and the hex HMAC-SHA256 of `body` keyed with `secret`. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** What one attempt came to: the HTTP status (null when no answer came) and, on failure, why. */
export interface Attempt {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/**
 * POSTs `body` (JSON text) to `url`, signed with `secret`, naming `eventId`; 2xx is delivered. Never
 * throws: a refused connection or a timeout is an attempt with `status: null` and its error.
 */
export async function postSigned(
  fetcher: typeof fetch,
  url: string,
  secret: string,
  eventId: string,
  body: string,
  timeoutMs: number,
): Promise<Attempt> {
  try {
    const response = await fetcher(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'g2rain-agent-runtime',
        [EVENT_HEADER]: eventId,
        [SIGNATURE_HEADER]: signature(secret, body),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    // The answer's body is not read: drain it so the connection can be reused.
    await response.body?.cancel();
    const ok = response.status >= 200 && response.status < 300;
    return { ok, status: response.status, error: ok ? null : `HTTP ${response.status}` };
  } catch (error) {
    return { ok: false, status: null, error: error instanceof Error ? error.message : String(error) };
  }
}
