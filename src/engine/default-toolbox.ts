import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Logger } from '../log/logger.js';
import { McpPool, type McpPoolOptions } from '../mcp/pool.js';
import { followTools, LiveMap } from '../mcp/live-tools.js';
import { buildCatalog } from '../tools/catalog.js';
import { ToolInvoker } from '../tools/invoker.js';
import { createPipeline, type Pipeline } from '../tools/pipeline.js';
import type { LocalTool, ToolDescriptor } from '../tools/tool.js';
import type { Guard } from '../tools/user-guards/define.js';
import { createBuiltins, type BuiltinRegistry } from '../tools/builtin/registry.js';
import { BuiltinDefinitionError, type UserBuiltin } from '../tools/builtin/user.js';
import type { FlowCatalog, FlowRef, Toolbox } from './toolbox.js';
import type { Flow } from '../domain/flow.js';
import { canonicalJson } from '../domain/fingerprint.js';

/** Default number of tool catalogs a DefaultToolbox keeps (`DefaultToolboxOptions.maxCatalogs`). */
export const DEFAULT_MAX_TOOL_CATALOGS = 256;

/** Options of `DefaultToolbox`. */
export interface DefaultToolboxOptions {
  localTools: LocalTool[];
  /** User guards (docs/interceptors.md), asked in this order on every call of a real tool. */
  guards?: readonly Guard[];
  /** The application's builtins (docs/builtins.md), after the standard ones; checked by `checkBuiltins`. */
  builtins?: readonly UserBuiltin[];
  logger: Logger;
  /** Tool catalogs kept, least recently used dropped first (default DEFAULT_MAX_TOOL_CATALOGS). */
  maxCatalogs?: number;
  /** Bounds of the MCP connection pool (`idleMs`, `maxConnectionsPerTenant`; defaults in pool.ts). */
  mcp?: Pick<McpPoolOptions, 'idleMs' | 'maxConnectionsPerTenant' | 'connect' | 'now' | 'env'>;
  /** The folder a flow without one of its own resolves its stdio servers against (default `process.cwd()`). */
  cwd?: string;
}

/**
 * The standard toolbox: MCP tools through one shared connection pool (one connection per tenant, flow
 * version and server config; idle ones closed, a limit per tenant), the host's local tools, the
 * builtins, and the full guard pipeline. Tool catalogs are cached per tenant, folder and flow content,
 * at most `maxCatalogs` of them.
 */
export class DefaultToolbox implements Toolbox {
  private readonly pool: McpPool;
  /** Least recently used dropped first; dropping one releases its live tool lists (connections stay the pool's). */
  private readonly catalogs: LRUCache<string, Promise<FlowCatalog>>;
  private readonly maxCatalogs: number;
  readonly pipeline: Pipeline;
  private readonly builtins: BuiltinRegistry;
  private readonly userBuiltins: readonly string[];

  constructor(private readonly options: DefaultToolboxOptions) {
    this.pool = new McpPool({ logger: options.logger, ...options.mcp });
    this.maxCatalogs = options.maxCatalogs ?? DEFAULT_MAX_TOOL_CATALOGS;
    if (!(this.maxCatalogs >= 1))
      throw new RangeError(`DefaultToolbox maxCatalogs must be ≥ 1, not ${this.maxCatalogs}`);
    this.catalogs = new LRUCache({
      max: this.maxCatalogs,
      dispose: (dropped, _key, reason) => {
        if (reason === 'evict')
          dropped.then(
            (c) => c.release?.(),
            () => undefined,
          );
      },
    });
    this.builtins = createBuiltins({ user: options.builtins ?? [] });
    this.userBuiltins = (options.builtins ?? []).map((b) => b.name);
    this.pipeline = createPipeline({
      guards: options.guards === undefined ? [] : options.guards,
      builtins: this.builtins,
    });
  }

  catalog(ref: FlowRef): Promise<FlowCatalog> {
    // The whole flow is in the key, not its id and version: two flows sent over HTTP may share both
    // and differ in servers, aliases or nodes; a catalog is never shared across tenants.
    const key = JSON.stringify([ref.tenant ?? null, ref.dir, flowDigest(ref.flow)]);
    const found = this.catalogs.get(key);
    if (found) return found;
    const loading = this.load(ref);
    this.catalogs.set(key, loading);
    // A failed load is not kept: the next run tries again.
    loading.catch(() => {
      if (this.catalogs.get(key) === loading) this.catalogs.delete(key);
    });
    return loading;
  }

  /** How many catalogs are cached, and how many MCP connections the pool holds. */
  get sizes(): { catalogs: number; connections: number } {
    return { catalogs: this.catalogs.size, connections: this.pool.size };
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /**
   * Loads a flow's catalog. What it keeps is small whatever the size of the flow: the servers, aliases
   * and identity of the flow and its tools' descriptors, never the flow itself (its nodes and texts).
   */
  private async load(ref: FlowRef): Promise<FlowCatalog> {
    // The tool policies are kept: they tell which of a node's tools write (and so need the approval builtin).
    const { id, version, locale, mcpServers, aliases, tools: policies } = ref.flow;
    const spec = { id, version, mcpServers, ...(aliases ? { aliases } : {}) };
    const servers = this.pool.forFlow(spec, ref.dir ?? this.options.cwd ?? process.cwd(), ref.tenant ?? null);
    // Follows the servers' tools/list_changed: a tool added mid-run is callable in the same run.
    const locals = this.options.localTools.map((tool) => tool.descriptor);
    const live = await followTools(servers, locals, this.options.logger);
    const all: ReadonlyMap<string, ToolDescriptor> = live.all;
    const clash = this.userBuiltins.find((name) => all.has(name));
    if (clash !== undefined) {
      live.stop();
      const server = all.get(clash)?.server;
      throw new BuiltinDefinitionError(
        `builtin ${clash} has the name of a tool of MCP server ${server ?? '?'} of flow ${id}; rename the builtin or alias the tool`,
      );
    }
    const invoker = new ToolInvoker({
      servers,
      localTools: this.options.localTools,
      logger: this.options.logger,
    });
    return {
      all,
      invoker,
      release: live.stop,
      settled: live.settled,
      protocols: () => servers.protocols(),
      visible: (node) =>
        new LiveMap(
          () =>
            buildCatalog({
              flow: { id, locale, nodes: [node], tools: policies },
              nodeId: node.id,
              tools: all.values(),
              builtins: this.builtins,
            }).visible,
          live.version,
        ),
    };
  }
}

const digests = new WeakMap<Flow, string>();

/** A digest of a flow's whole content (computed once per flow object). */
function flowDigest(flow: Flow): string {
  let digest = digests.get(flow);
  if (digest === undefined) {
    digest = hash('sha256', canonicalJson(flow), 'hex');
    digests.set(flow, digest);
  }
  return digest;
}
