import type { Client, RequestOptions } from '@modelcontextprotocol/client';
import type { ToolDescriptor } from '../domain/tool.js';
import type { LogSink } from './server-log.js';
import type { ElicitHandler, HoldHandler, McpElicitation } from './elicitation.js';
import type { SampleHandler } from './sampling.js';
import type { InputRound } from '../records/run-state.js';

/** One content block of an MCP tool result (text, image, resource, …); only `type` is common to all. */
export interface McpContentBlock {
  readonly type: string;
  readonly text?: string;
  readonly [key: string]: unknown;
}

/** The part of an MCP `tools/call` result the runtime reads. */
export interface McpCallResult {
  readonly content: readonly McpContentBlock[];
  /** Present when the server sent `structuredContent` (any JSON value). */
  readonly structuredContent?: unknown;
  /** True when the tool reported a tool-level error (`isError: true`). */
  readonly isError: boolean;
  /**
   * Set when the server asked the person something the call's `onElicit` had no answer to: the call
   * was cancelled, and is to be sent again once the person answered (content is then empty).
   */
  readonly elicitation?: McpElicitation;
  /** Set when the call was to run as a task and its server does not offer tasks for tool calls (not sent). */
  readonly noTasks?: boolean;
  /**
   * Set when the call runs as a task that had not ended within the call's `task.waitMs`: the task goes on
   * at the server, the run waits for it (docs/mcp.md, "Tools that run as tasks"; content is then empty).
   */
  readonly working?: McpTaskState;
}

/** A task of a `tools/call` as the server last reported it (2025-11-25 tasks). */
export interface McpTaskState {
  readonly taskId: string;
  readonly status: string;
  readonly statusMessage?: string;
  /** The wait the server asks for between two `tasks/get`, ms. */
  readonly pollInterval?: number;
  /** How long the server keeps the task after it was created, ms (null: unlimited). */
  readonly ttl?: number | null;
  /** When the server created it (ISO 8601), when it says. */
  readonly createdAt?: string;
}

/** How a call that runs as a task waits for it (src/mcp/task-call.ts). */
export interface McpTaskWait {
  /** How long the call polls in this process before it returns the task still working. */
  readonly waitMs: number;
  /** The task this call already started (a resumed run): it is polled, never sent again. */
  readonly resume?: string;
  /** Told once the server created the task (before it is polled): the run records it. */
  readonly started?: (task: McpTaskState) => void | Promise<void>;
}

/** Per-call options of `McpConnection.callTool`. */
export interface McpCallOptions {
  /** The call is cancelled (MCP `notifications/cancelled`) and rejects with a request timeout after this. */
  readonly timeoutMs: number;
  /** Aborts the call (run cancelled). */
  readonly signal?: AbortSignal;
  /** Sent in the request's `_meta`, e.g. `{ idempotencyKey }` (docs/durability.md). */
  readonly meta?: Readonly<Record<string, unknown>>;
  /**
   * Each progress notification starts `timeoutMs` afresh, but the call never runs longer than this
   * (default: `timeoutMs`, so progress extends nothing).
   */
  readonly maxTotalMs?: number;
  /** Told about each progress notification of the call (a progress token is sent with every call). */
  readonly onProgress?: (progress: McpProgress) => void;
  /** Answers the server's questions (elicitation) during this call; without it they are answered `cancel`. */
  readonly onElicit?: ElicitHandler;
  /** Holds a question `onElicit` had no answer to open while a person may answer it (docs/mcp.md). */
  readonly onHold?: HoldHandler;
  /**
   * The `input_required` round this call was suspended in, when the person has answered its question:
   * the call is sent as that round's retry (its responses and request state), not afresh.
   */
  readonly resumeInput?: () => InputRound | undefined;
  /** Runs the call as a task (a tool with `taskSupport: required`, docs/mcp.md, "Tools that run as tasks"). */
  readonly asTask?: boolean;
  /** A task call waits at most this long here; without it, the call waits for the task's end. */
  readonly task?: McpTaskWait;
  /** Answers the server's sampling requests during this call (servers with `sampling: true` only). */
  readonly onSample?: SampleHandler;
  /** Told about the server's log messages while this call is the only one in flight (src/mcp/server-log.ts). */
  readonly onLog?: LogSink;
}

/** One `notifications/progress` of a call. */
export interface McpProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** The protocol revision a connection negotiated with its server. */
export interface McpProtocol {
  /** The revision, e.g. `2025-11-25` or `2026-07-28`. */
  readonly version: string;
  /** `modern`: the 2026-07-28 stateless revision (`server/discover`); `legacy`: the `initialize` handshake. */
  readonly era: 'modern' | 'legacy';
  /** The server's first safe `serverInfo.icons` URL (domain/tool-icon.ts), shown in the console. */
  readonly icon?: string;
}

/** Options of `McpConnection.listTools`. */
export interface McpListOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * A live connection to one MCP server of one flow version, shared by every run of that version. Requests
 * on it run concurrently. It connects lazily on first use and reconnects (restarting a stdio server) on the
 * next use after the server died. Errors are thrown as they come (SDK errors, McpError CONNECT); the
 * invoker classifies them.
 */
export interface McpConnection {
  /** The flow's id for the server (the key under `mcpServers`). */
  readonly serverId: string;
  /** The server's tools as descriptors (kind `mcp`, name = remote name, before aliasing). */
  listTools(options?: McpListOptions): Promise<ToolDescriptor[]>;
  /** Calls a tool by its name on the server. A tool-level error is a result with `isError`, not a throw. */
  callTool(
    remoteName: string,
    args: Readonly<Record<string, unknown>>,
    options: McpCallOptions,
  ): Promise<McpCallResult>;
  /** Closes the connection and, for stdio, ends the server process. Idempotent. */
  close(): Promise<void>;
  /** The pid of the current stdio server process, or null (HTTP, not connected, exited). */
  readonly pid: number | null;
  /**
   * Calls `listener` with the server's new tool list after each `notifications/tools/list_changed`
   * (descriptors as `listTools` gives them). Returns the function that removes the listener.
   */
  onToolsChanged?(listener: (tools: ToolDescriptor[]) => void): () => void;
  /**
   * Resolves once every `notifications/tools/list_changed` received so far has been followed by a
   * relisting and its listeners told (at once when none is pending).
   */
  toolsSettled?(): Promise<void>;
  /** The revision negotiated by the current session, or null when not connected. */
  protocol?(): McpProtocol | null;
  /** `resources/read` of `uri`: each of its contents as an embedded `resource` block (text or base64 `blob`). */
  readResource?(uri: string, options?: McpListOptions): Promise<readonly McpContentBlock[]>;
  /**
   * One request of the SDK client on the live session (connecting first): what the runtime asks a
   * server besides tools (resources, prompts, completions: src/mcp/server-content.ts). `options`
   * carries the timeout and signal to pass to the SDK call.
   */
  request?<T>(use: McpClientUse<T>, options?: McpListOptions): Promise<T>;
}

/** A request made with the SDK client of a connection (`McpConnection.request`). */
export type McpClientUse<T> = (client: Client, options: RequestOptions) => Promise<T>;

/** Finds the connection of a server of the current flow (what the invoker needs). */
export interface McpServerLookup {
  /**
   * The connection for a server id, to be used for one request and not kept (a pool may close an idle
   * one and open it again). Throws for an id the flow does not declare, and McpError CONNECT when no
   * connection may be opened now (a pool's limit of connections per tenant, all busy).
   */
  connection(serverId: string): McpConnection;
}
