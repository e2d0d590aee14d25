import type { ThreadFilter, ThreadRecord } from './store.js';

/**
 * What the stores share about threads (docs/threads.md): the key of a tenant (a thread of no tenant
 * is kept under ''), the page size, and the in-memory table the memory store uses.
 */

/** The stored key of a tenant: threads without a tenant are kept under ''. */
export function tenantKey(tenant: string | null): string {
  return tenant ?? '';
}

/** The tenant a stored key stands for. */
export function tenantOf(key: string): string | null {
  return key === '' ? null : key;
}

/** The page size of `listThreads`: 1 to 1000, default 100. */
export function threadLimit(filter: ThreadFilter): number {
  return Math.min(1000, Math.max(1, Math.trunc(filter.limit ?? 100)));
}

/** Whether thread `t` comes after the cursor in `listThreads` order (updated desc, id asc). */
export function afterCursor(t: ThreadRecord, after: ThreadFilter['after']): boolean {
  if (!after) return true;
  if (t.updatedAt !== after.updatedAt) return t.updatedAt < after.updatedAt;
  return t.threadId > after.threadId;
}

/** The order of `listThreads`: most recently updated first, ties by id. */
export function threadOrder(a: ThreadRecord, b: ThreadRecord): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.threadId < b.threadId ? -1 : a.threadId > b.threadId ? 1 : 0;
}

/** The threads of a MemoryStore: values handed out are copies. */
export class MemoryThreads {
  readonly #threads = new Map<string, ThreadRecord>();

  constructor(private readonly now: () => Date) {}

  append(tenant: string | null, threadId: string, runId: string, after: string | null): ThreadRecord | null {
    const key = JSON.stringify([tenantKey(tenant), threadId]);
    const known = this.#threads.get(key);
    const ts = this.now().toISOString();
    if ((known?.runIds.at(-1) ?? null) !== after) return null;
    const next: ThreadRecord = known
      ? { ...known, runIds: [...known.runIds, runId], updatedAt: ts }
      : { threadId, tenant, runIds: [runId], createdAt: ts, updatedAt: ts };
    this.#threads.set(key, next);
    return copy(next);
  }

  get(tenant: string | null, threadId: string): ThreadRecord | null {
    const known = this.#threads.get(JSON.stringify([tenantKey(tenant), threadId]));
    return known ? copy(known) : null;
  }

  list(filter: ThreadFilter): ThreadRecord[] {
    return [...this.#threads.values()]
      .filter((t) => t.tenant === filter.tenant && afterCursor(t, filter.after))
      .sort(threadOrder)
      .slice(0, threadLimit(filter))
      .map(copy);
  }
}

function copy(t: ThreadRecord): ThreadRecord {
  return { ...t, runIds: [...t.runIds] };
}
