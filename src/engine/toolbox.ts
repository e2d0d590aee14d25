import type { CodeStep } from '../domain/code-step.js';
import type { EdgeCondition } from '../domain/edge-condition.js';
import type { Flow, FlowNode } from '../domain/flow.js';
import type { ToolInvokerPort } from '../tools/call.js';
import type { Pipeline } from '../tools/pipeline.js';
import type { ToolDescriptor } from '../tools/tool.js';
import type { McpProtocol } from '../mcp/types.js';
import type { RunRecord } from '../store/store.js';

/** A flow with the folder its relative paths resolve against, and whose run it is. */
export interface FlowRef {
  flow: Flow;
  dir: string | null;
  /**
   * The tenant the run belongs to (null: none). MCP connections and tool catalogs are never shared
   * across tenants, even for flows with the same id and version.
   */
  tenant?: string | null;
  /** The functions of its code nodes, when the flow was written in code and loaded in this process. */
  code?: ReadonlyMap<string, CodeStep>;
  /** The function `when`s of its edges by edge index, when the flow was written in code and loaded in this process. */
  conditions?: ReadonlyMap<number, EdgeCondition>;
}

/**
 * Everything about tools the runtime needs: the tools each node sees (MCP tools of the flow's
 * servers, the host's local tools, the builtins) and the guard pipeline that runs a call.
 */
export interface Toolbox {
  /**
   * The tools of a flow, by the name the model sees: every real tool (MCP tools of its servers and
   * the host's local tools), and those visible in a node (its `tools` plus the builtins).
   * Connects to MCP servers as needed.
   */
  catalog(ref: FlowRef): Promise<FlowCatalog>;
  /** Runs one call through the full guard chain; resolves to its one report (node runs call it through their runner). */
  readonly pipeline: Pipeline;
  /** Closes MCP connections. */
  close(): Promise<void>;
}

/** The tools of one flow. */
export interface FlowCatalog {
  readonly all: ReadonlyMap<string, ToolDescriptor>;
  /** Calls the flow's real tools. */
  readonly invoker: ToolInvokerPort;
  visible(node: FlowNode): ReadonlyMap<string, ToolDescriptor>;
  /** Stops following the servers' tool list changes (the catalog is dropped). */
  release?(): void;
  /** Resolves once the tool list changes the servers announced so far are in the catalog. */
  settled?(): Promise<void>;
  /** The protocol revision each connected MCP server of the flow negotiated (`mcp.connected` events). */
  protocols?(): readonly { server: string; protocol: McpProtocol }[];
}

/** The flow a stored run runs, with its folder (the flow as validated when the run started). */
export function flowRefOf(record: Pick<RunRecord, 'flow' | 'flowDir' | 'tenant'>): FlowRef {
  return { flow: record.flow, dir: record.flowDir, tenant: record.tenant };
}
