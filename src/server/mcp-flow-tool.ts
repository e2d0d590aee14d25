import type { Flow } from '../domain/flow.js';
import { describeFlow } from '../flow/describe.js';
import { listToolsOverMcp } from '../flow/mcp-lister.js';
import type { LoadedFlow } from '../flow/load.js';
import type { Logger } from '../log/logger.js';
import type { RunSummary } from '../records/summary.js';

/** A flow offered as an MCP tool (docs/mcp.md, "Serving flows as MCP tools"). */
export interface FlowToolDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema: Record<string, unknown>;
  readonly annotations: { readOnlyHint: boolean; destructiveHint: boolean; openWorldHint: boolean };
}

/** The name of the tool that reports (and, with elicitation, continues) a run a flow tool left waiting. */
export const RUN_STATUS_TOOL = 'run_status';

/**
 * The tool of a flow: named by the flow id, its input schema the flow's `input`, its output schema the
 * result's shape (`status`, `runId`, and `reply` and `outputs` once completed, `pending` while
 * suspended) with the flow's typed outputs in `outputs`. `writes` (flowWrites) sets the annotations:
 * read-only when the flow has no write tool, destructive when it has one.
 */
export function flowToolDefinition(flow: Flow, writes: boolean): FlowToolDefinition {
  return {
    name: flow.id,
    description:
      flow.description ??
      `Runs the agent flow ${flow.id}. Its writes wait for a person's approval; the result is the run's reply and outputs.`,
    inputSchema: inputSchemaOf(flow),
    outputSchema: resultSchema(describeFlow(flow).outputsSchema),
    annotations: { readOnlyHint: !writes, destructiveHint: writes, openWorldHint: true },
  };
}

/** `run_status {runId}`: what a client calls to learn how a suspended run went on. */
export function runStatusDefinition(): FlowToolDefinition {
  return {
    name: RUN_STATUS_TOOL,
    title: 'Run status',
    description:
      'The state of a run a flow tool started: the reply and outputs once it completed, what it waits for while suspended (asked of this client when it takes elicitation and may approve). Waits up to waitSeconds (default 30) while the run is still working.',
    inputSchema: {
      type: 'object',
      properties: {
        runId: { type: 'string', description: 'The runId a flow tool returned.' },
        waitSeconds: { type: 'number', minimum: 0, maximum: 120 },
      },
      required: ['runId'],
    },
    outputSchema: resultSchema({ type: 'object' }),
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  };
}

function inputSchemaOf(flow: Flow): Record<string, unknown> {
  const input = flow.input;
  // MCP tool input is an object; a flow whose input is not one is given as its single `input` field.
  if (input.type === 'object') return input;
  return { type: 'object', properties: { input }, required: ['input'] };
}

function resultSchema(outputs: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      status: { type: 'string', enum: ['completed', 'suspended', 'running', 'failed', 'cancelled'] },
      runId: { type: 'string' },
      reply: { type: ['string', 'null'] },
      outputs,
      pending: { type: 'object' },
      consoleUrl: { type: 'string' },
      reason: { type: 'string' },
      message: { type: 'string' },
    },
    required: ['status', 'runId'],
  };
}

/** The run input a flow tool's arguments give (the inverse of inputSchemaOf). */
export function runInputOf(flow: Flow, args: Record<string, unknown>): unknown {
  return flow.input.type === 'object' ? args : args.input;
}

const writesCache = new WeakMap<Flow, Promise<boolean>>();

/**
 * True when the flow has a write tool: a node's tool whose policy says `write: true`, or without a
 * `write` policy, one its MCP server does not annotate `readOnlyHint: true` (as the write gate judges
 * it). The flow's MCP servers are listed once per loaded flow; a server that cannot be listed makes
 * its tools count as writes (logged).
 */
export function flowWrites(loaded: LoadedFlow, logger?: Logger): Promise<boolean> {
  const known = writesCache.get(loaded.flow);
  if (known) return known;
  const judged = judgeWrites(loaded, logger);
  writesCache.set(loaded.flow, judged);
  return judged;
}

async function judgeWrites(loaded: LoadedFlow, logger?: Logger): Promise<boolean> {
  const { flow } = loaded;
  const names = new Set(flow.nodes.flatMap((node) => node.tools).filter((n) => !n.startsWith('builtin_')));
  const undecided = [...names].filter((name) => flow.tools[name]?.write === undefined);
  if ([...names].some((name) => flow.tools[name]?.write === true)) return true;
  if (undecided.length === 0) return false;
  const readOnly = new Set<string>();
  for (const [serverId, config] of Object.entries(flow.mcpServers)) {
    try {
      for (const tool of await listToolsOverMcp(serverId, config, loaded.dir ?? process.cwd()))
        if (tool.readOnlyHint === true) readOnly.add(tool.name);
    } catch (error) {
      logger?.warn('MCP SERVE cannot list the tools of an MCP server; its tools count as writes', {
        flow: flow.id,
        server: serverId,
        error: (error as Error).message,
      });
    }
  }
  return undecided.some((name) => !readOnly.has(name));
}

/** The MCP `tools/call` result of a run summary (docs/mcp.md, "Serving flows as MCP tools"). */
export interface FlowCallResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

/**
 * The result a client gets for a run: completed → the reply (else the outputs as JSON) with
 * `{status, runId, reply, outputs}`; suspended → "waiting for approval at <console URL>" (or for an
 * answer) with `{status: 'suspended', runId, pending}`, not an error; running → the same without
 * `pending`; failed or cancelled → an error naming the reason.
 */
export function runResult(summary: RunSummary, consoleUrl: string | null): FlowCallResult {
  const base = { status: summary.status, runId: summary.runId };
  const at = consoleUrl === null ? {} : { consoleUrl };
  switch (summary.status) {
    case 'completed': {
      const text = summary.reply ?? JSON.stringify(summary.outputs);
      return {
        content: [{ type: 'text', text }],
        structuredContent: { ...base, reply: summary.reply, outputs: summary.outputs },
        isError: false,
      };
    }
    case 'suspended': {
      const suspension = summary.suspension;
      const pending = suspension?.pending;
      const what =
        suspension?.kind === 'APPROVAL' && pending !== undefined && 'tool' in pending
          ? `approval of ${pending.tool}`
          : 'an answer';
      const where = consoleUrl === null ? `agent-runtime approve / answer ${summary.runId}` : consoleUrl;
      const text = `Run ${summary.runId} is waiting for ${what} at ${where}. Call ${RUN_STATUS_TOOL} with this runId for its result once it was given.`;
      return {
        content: [{ type: 'text', text }],
        structuredContent: { ...base, pending: pending ?? {}, ...at },
        isError: false,
      };
    }
    case 'running':
      return {
        content: [
          {
            type: 'text',
            text: `Run ${summary.runId} is still working; call ${RUN_STATUS_TOOL} with this runId for its result.`,
          },
        ],
        structuredContent: { ...base, ...at },
        isError: false,
      };
    default: {
      const why = summary.message ?? summary.reason ?? summary.status;
      return {
        content: [{ type: 'text', text: `Run ${summary.runId} ${summary.status}: ${why}` }],
        structuredContent: {
          ...base,
          ...(summary.reason === undefined ? {} : { reason: summary.reason }),
          ...(summary.message === undefined ? {} : { message: summary.message }),
        },
        isError: true,
      };
    }
  }
}
