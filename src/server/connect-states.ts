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
/**
 * Most authorizations in progress at once for one tenant (tenant null counting as one); starting one
 * more forgets that tenant's oldest, never another tenant's.
 */
export const MAX_CONNECT_STATES_PER_TENANT = 100;

/** Why a callback's `state` is refused, or the state it names. */
export type TakenState = { ok: true; state: ConnectState } | { ok: false; why: 'unknown' | 'expired' };

/**
 * The authorizations `serve` started (docs/mcp.md, "Connect"), by the `state` their URL carries,
 * kept in memory: each is taken once (a replayed callback finds nothing), expires after `ttlMs`, one
 * per pending item (starting again for the same run and pending item replaces the previous one) and
 * at most `maxPerTenant` per tenant (one more forgets that tenant's oldest). Keys are hashes of the
 * state, so a state is never kept as it is.
 */
export class ConnectStates {
  private readonly states = new Map<string, ConnectState>();
  /** The key of the state kept for each pending item (run and pending id). */
  private readonly byItem = new Map<string, string>();

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = CONNECT_STATE_TTL_MS,
    private readonly maxPerTenant = MAX_CONNECT_STATES_PER_TENANT,
  ) {}

  /** How many authorizations are kept (all tenants). */
  get size(): number {
    return this.states.size;
  }

  /** Keeps an authorization under its `state` until `take` or its expiry. */
  put(state: string, entry: Omit<ConnectState, 'expiresAt'>): ConnectState {
    this.sweep();
    const previous = this.byItem.get(itemOf(entry));
    if (previous !== undefined) this.remove(previous);
    const mine = [...this.states].filter(([, kept]) => kept.tenant === entry.tenant);
    for (const [k] of mine.slice(0, Math.max(0, mine.length - this.maxPerTenant + 1))) this.remove(k);
    const kept = { ...entry, expiresAt: this.now() + this.ttlMs };
    const k = key(state);
    this.states.set(k, kept);
    this.byItem.set(itemOf(entry), k);
    return kept;
  }

  /** The authorization `state` names, removed (single use); refused when unknown, used or expired. */
  take(state: string): TakenState {
    const k = key(state);
    const found = this.states.get(k);
    this.remove(k);
    if (!found) return { ok: false, why: 'unknown' };
    if (found.expiresAt <= this.now()) return { ok: false, why: 'expired' };
    return { ok: true, state: found };
  }

  private remove(k: string): void {
    const found = this.states.get(k);
    if (!found) return;
    this.states.delete(k);
    if (this.byItem.get(itemOf(found)) === k) this.byItem.delete(itemOf(found));
  }

  private sweep(): void {
    const now = this.now();
    for (const [k, entry] of this.states) if (entry.expiresAt <= now) this.remove(k);
  }
}

/** One pending item of one run (a run waits for one authorization per item). */
function itemOf(entry: Pick<ConnectState, 'runId' | 'pendingId'>): string {
  return `${entry.runId}\u0000${entry.pendingId ?? ''}`;
}

function key(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}
