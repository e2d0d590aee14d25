import { createHash } from 'node:crypto';

/** What `serve` keeps of one authorization started for a pending item, until its callback. */
export interface ConnectState {
  readonly tenant: string | null;
  readonly runId: string;
  /** The pending item the run waited for: the callback answers exactly that one. */
  readonly pendingId: string | null;
  readonly serverId: string;
  /** The PKCE code verifier (never sent anywhere but the authorization server's token endpoint). */
  readonly verifier: string;
  readonly scope?: string;
  readonly redirectUrl: string;
  /** Who started it (recorded as who answered). */
  readonly who: string | null;
  readonly expiresAt: number;
}

/** How long an authorization may take before its state is refused (10 min). */
export const CONNECT_STATE_TTL_MS = 600_000;
/** Most authorizations in progress at once; starting one more forgets the oldest. */
export const MAX_CONNECT_STATES = 1_000;

/** Why a callback's `state` is refused, or the state it names. */
export type TakenState = { ok: true; state: ConnectState } | { ok: false; why: 'unknown' | 'expired' };

/**
 * The authorizations `serve` started (docs/mcp.md, "Connect"), by the `state` their URL carries,
 * kept in memory: each is taken once (a replayed callback finds nothing), expires after `ttlMs`, and
 * at most `max` are kept. Keys are hashes of the state, so a state is never kept as it is.
 */
export class ConnectStates {
  private readonly states = new Map<string, ConnectState>();

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = CONNECT_STATE_TTL_MS,
    private readonly max = MAX_CONNECT_STATES,
  ) {}

  /** Keeps an authorization under its `state` until `take` or its expiry. */
  put(state: string, entry: Omit<ConnectState, 'expiresAt'>): ConnectState {
    this.sweep();
    while (this.states.size >= this.max) {
      const oldest = this.states.keys().next().value;
      if (oldest === undefined) break;
      this.states.delete(oldest);
    }
    const kept = { ...entry, expiresAt: this.now() + this.ttlMs };
    this.states.set(key(state), kept);
    return kept;
  }

  /** The authorization `state` names, removed (single use); refused when unknown, used or expired. */
  take(state: string): TakenState {
    const k = key(state);
    const found = this.states.get(k);
    this.states.delete(k);
    if (!found) return { ok: false, why: 'unknown' };
    if (found.expiresAt <= this.now()) return { ok: false, why: 'expired' };
    return { ok: true, state: found };
  }

  private sweep(): void {
    const now = this.now();
    for (const [k, entry] of this.states) if (entry.expiresAt <= now) this.states.delete(k);
  }
}

function key(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}
