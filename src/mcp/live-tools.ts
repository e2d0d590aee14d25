import type { ToolDescriptor } from '../domain/tool.js';
import type { Logger } from '../log/logger.js';
import { describeError } from './errors.js';
import type { FlowServers } from './pool.js';

/** A flow's MCP tools that follow the servers' `notifications/tools/list_changed`. */
export interface LiveTools {
  /** The tools by model-facing name, updated in place when a server's list changes. */
  readonly all: Map<string, ToolDescriptor>;
  /** Increases with every update of `all` (views compare it to know they are stale). */
  readonly version: () => number;
  /** Stops following the servers (the catalog is dropped). */
  readonly stop: () => void;
  /**
   * Resolves once every tool list change the servers announced so far is in `all` (at once when none
   * is pending): awaited after a call, so the model's next turn sees a tool the call added.
   */
  readonly settled: () => Promise<void>;
}

/**
 * Lists the flow's MCP tools (plus `extra`, e.g. local tools, which win on a name clash) and keeps the
 * map current: when a server says its tools changed, the whole catalog is named again (aliases,
 * conflicts) and `all` is updated in place, so a tool the server added is callable in the same run,
 * and one it removed is gone. A relisting that fails (a new name conflict) keeps the previous tools
 * and is logged. Connections closed and opened again by the pool (idle) are not followed any more.
 */
export async function followTools(
  servers: FlowServers,
  extra: readonly ToolDescriptor[],
  logger: Logger,
): Promise<LiveTools> {
  const all = new Map<string, ToolDescriptor>();
  let version = 0;
  const fill = (mcp: readonly ToolDescriptor[]) => {
    all.clear();
    for (const tool of mcp) all.set(tool.name, tool);
    for (const tool of extra) all.set(tool.name, tool);
    version += 1;
  };
  fill(servers.serverIds.length > 0 ? await servers.catalog() : []);
  let relisting: Promise<void> = Promise.resolve();
  const relist = () => {
    relisting = servers.catalog().then(fill, (error: unknown) =>
      logger.warn('MCP tool list change not applied', {
        flow: servers.flow.id,
        error: describeError(error),
      }),
    );
  };
  const connections = servers.serverIds.map((id) => servers.connection(id));
  const stops = connections.map((connection) => connection.onToolsChanged?.(relist));
  return {
    all,
    version: () => version,
    stop: () => stops.forEach((stop) => stop?.()),
    settled: async () => {
      await Promise.all(connections.map((c) => c.toolsSettled?.() ?? Promise.resolve()));
      await relisting;
    },
  };
}

/**
 * A read-only map computed by `compute` and computed again whenever `version()` has changed since:
 * a view (the tools of one node) of a map that changes in place.
 */
export class LiveMap<K, V> implements ReadonlyMap<K, V> {
  private seen = -1;
  private current: ReadonlyMap<K, V> = new Map();

  constructor(
    private readonly compute: () => ReadonlyMap<K, V>,
    private readonly version: () => number,
  ) {}

  private get map(): ReadonlyMap<K, V> {
    const now = this.version();
    if (now !== this.seen) {
      this.current = this.compute();
      this.seen = now;
    }
    return this.current;
  }

  get size(): number {
    return this.map.size;
  }
  get(key: K): V | undefined {
    return this.map.get(key);
  }
  has(key: K): boolean {
    return this.map.has(key);
  }
  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    this.map.forEach((value, key) => callback.call(thisArg, value, key, this));
  }
  entries(): MapIterator<[K, V]> {
    return this.map.entries();
  }
  keys(): MapIterator<K> {
    return this.map.keys();
  }
  values(): MapIterator<V> {
    return this.map.values();
  }
  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.map[Symbol.iterator]();
  }
}
