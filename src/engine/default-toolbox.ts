import { hash } from 'node:crypto';
import type { Logger } from '../log/logger.js';
import { McpPool } from '../mcp/pool.js';
import { buildCatalog } from '../tools/catalog.js';
import { ToolInvoker } from '../tools/invoker.js';
import { createPipeline } from '../tools/pipeline.js';
import type { CallContext } from '../tools/call.js';
import type { LocalTool, ToolDescriptor } from '../tools/tool.js';
import type { Observation } from '../domain/observation.js';
import type { FlowCatalog, FlowRef, Toolbox } from './toolbox.js';
import type { Flow } from '../domain/flow.js';
import { canonicalJson } from '../domain/fingerprint.js';

/**
 * The standard toolbox: MCP tools through one shared connection pool (one connection per tenant, flow
 * version and server config), the host's local tools, the builtins, and the full guard pipeline.
 */
export class DefaultToolbox implements Toolbox {
  private readonly pool: McpPool;
  private readonly catalogs = new Map<string, Promise<FlowCatalog>>();
  private readonly pipeline: (ctx: CallContext) => Promise<Observation>;

  constructor(private readonly options: { localTools: LocalTool[]; logger: Logger }) {
    this.pool = new McpPool({ logger: options.logger });
    this.pipeline = createPipeline();
  }

  catalog(ref: FlowRef): Promise<FlowCatalog> {
    // The whole flow is in the key, not its id and version: two flows sent over HTTP may share both
    // and differ in servers, aliases or nodes; a catalog is never shared across tenants.
    const key = JSON.stringify([ref.tenant ?? null, ref.dir, flowDigest(ref.flow)]);
    let found = this.catalogs.get(key);
    if (!found) {
      found = this.load(ref);
      this.catalogs.set(key, found);
      found.catch(() => this.catalogs.delete(key));
    }
    return found;
  }

  run(ctx: CallContext): Promise<Observation> {
    return this.pipeline(ctx);
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async load(ref: FlowRef): Promise<FlowCatalog> {
    const servers = this.pool.forFlow(ref.flow, ref.dir ?? process.cwd(), ref.tenant ?? null);
    const mcpTools = Object.keys(ref.flow.mcpServers).length > 0 ? await servers.catalog() : [];
    const all = new Map<string, ToolDescriptor>();
    for (const tool of mcpTools) all.set(tool.name, tool);
    for (const tool of this.options.localTools) all.set(tool.descriptor.name, tool.descriptor);
    const invoker = new ToolInvoker({ servers, localTools: this.options.localTools });
    return {
      all,
      invoker,
      visible: (node) => buildCatalog({ flow: ref.flow, nodeId: node.id, tools: all.values() }).visible,
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
