import { createHash } from 'node:crypto';

/**
 * The idempotency key of a write (docs/durability.md): derived from the run id and the call's fingerprint, so
 * a re-sent write (after a crash) carries the same key. Sent in the MCP request's `_meta`.
 */
export function idempotencyKey(runId: string, fingerprint: string): string {
  return createHash('sha256').update(`${runId}\n${fingerprint}`).digest('hex').slice(0, 32);
}
