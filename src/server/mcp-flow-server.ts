import {
  isInputRequiredResult,
  Server,
  type CallToolResult,
  type ElicitRequestFormParams,
  type ElicitResult,
  type Tool,
} from '@modelcontextprotocol/server';
import { CLIENT_INFO } from '../mcp/client-info.js';
import { FLOW_SERVER_CACHE_HINTS, registerFlowContent } from './mcp-flow-content.js';
import { RunError } from '../domain/run-error.js';
import { ApiError } from './errors.js';
import type { LoadedFlow } from '../flow/load.js';
import type { Logger } from '../log/logger.js';
import {
  callFlow,
  continueAnswered,
  inputProblems,
  runStatus,
  type ElicitForm,
  type FlowCallAnswer,
  type FlowCallHost,
} from './mcp-flow-call.js';
import {
  answeredRound,
  askInBand,
  takesForms,
  type AnsweredRound,
  type RequestStates,
} from './mcp-input-required.js';
import {
  flowToolDefinition,
  flowWrites,
  RUN_STATUS_TOOL,
  runStatusDefinition,
  type FlowToolDefinition,
} from './mcp-flow-tool.js';

/** What an MCP server of flows serves, for one client connection. */
export interface FlowMcpServerOptions {
  /** The flows the client sees as tools (read on every `tools/list` and `tools/call`). */
  flows(): readonly LoadedFlow[];
  /**
   * The host of one call; `elicit` is the client's elicitation when it declared the capability and the
   * connection's protocol revision has server-to-client requests (2025 revisions), else null.
   */
  host(elicit: FlowCallHost['elicit']): FlowCallHost;
  /** False for connections of a revision without server-to-client requests (2026-07-28). */
  pushRequests?: boolean;
  /**
   * The request states of `input_required` rounds (2026-07-28): with them, a run waiting for a person
   * is asked of a client that declared elicitation and whose caller may approve, in-band; without,
   * such a call answers with the suspended run.
   */
  requestStates?: RequestStates;
  logger?: Logger;
}

/**
 * A low-level MCP server whose tools are the flows (docs/mcp.md, "Serving flows as MCP tools"): each
 * flow a tool (flowToolDefinition) plus `run_status`; a call starts and drives a run (callFlow). Each
 * flow is also a prompt, and the caller's runs are resources (registerFlowContent); cacheable results
 * carry FLOW_SERVER_CACHE_HINTS on 2026-07-28.
 * Bad arguments, an unknown tool and a run that could not start are tool errors (`isError`), never
 * protocol errors.
 */
export function createFlowMcpServer(options: FlowMcpServerOptions): Server {
  const server = new Server(
    { name: CLIENT_INFO.name, version: CLIENT_INFO.version },
    {
      capabilities: {
        tools: { listChanged: false },
        prompts: { listChanged: false },
        resources: { listChanged: false },
      },
      cacheHints: FLOW_SERVER_CACHE_HINTS,
      instructions:
        "Each tool runs an agent flow. Writes wait for a person's approval; a suspended run is continued with run_status.",
      ...(options.requestStates ? { requestState: { verify: options.requestStates.verify } } : {}),
    },
  );
  const definitions = async (): Promise<FlowToolDefinition[]> => [
    ...(await Promise.all(
      options
        .flows()
        .map(async (loaded) => flowToolDefinition(loaded.flow, await flowWrites(loaded, options.logger))),
    )),
    runStatusDefinition(),
  ];
  registerFlowContent(server, { flows: () => options.flows(), host: () => options.host(null) });
  server.setRequestHandler('tools/list', async () => ({ tools: (await definitions()).map(asTool) }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name } = request.params;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const modern = options.pushRequests === false;
    const canElicit = !modern && server.getClientCapabilities()?.elicitation !== undefined;
    const elicit = canElicit
      ? async (form: ElicitForm) => answerOf(await ctx.mcpReq.elicitInput(formParams(form)))
      : null;
    const base = options.host(elicit);
    const states = modern ? options.requestStates : undefined;
    const host: FlowCallHost =
      states && takesForms(ctx) ? { ...base, inputRequired: askInBand(states, name, base.caller) } : base;
    const round = states ? answeredRound(ctx, states, name, base.caller) : null;
    if (typeof round === 'string') return toolError(`refused: ${round}`);
    const definition = (await definitions()).find((d) => d.name === name);
    const result = await callTool(host, options.flows(), name, args, round);
    if (isInputRequiredResult(result)) return result;
    return server.projectCallToolResult(result, definition?.outputSchema);
  });
  return server;
}

async function callTool(
  host: FlowCallHost,
  flows: readonly LoadedFlow[],
  name: string,
  args: Record<string, unknown>,
  round: AnsweredRound | null,
): Promise<CallToolResult | FlowCallAnswer> {
  try {
    if (round !== null) {
      // A retried 2026-07-28 call: the answer, for the run and item its verified state names.
      if (!host.caller.mayApprove)
        return toolError(`refused: token ${host.caller.name} may not approve or answer`);
      const runId = round.asked.runId;
      return (
        (await continueAnswered(host, round.asked, round.answer)) ??
        toolError(`unknown run id ${JSON.stringify(runId)}`)
      );
    }
    if (name === RUN_STATUS_TOOL) {
      const runId = typeof args.runId === 'string' ? args.runId : '';
      const wait = typeof args.waitSeconds === 'number' ? args.waitSeconds : undefined;
      return (await runStatus(host, runId, wait)) ?? toolError(`unknown run id ${JSON.stringify(runId)}`);
    }
    const loaded = flows.find((f) => f.flow.id === name);
    if (!loaded) return toolError(`unknown tool ${JSON.stringify(name)}: tools/list names the flows served`);
    const problems = inputProblems(loaded, args);
    if (problems.length > 0)
      return toolError(
        `the arguments do not match the input schema of flow ${name}:\n${problems.join('\n')}`,
      );
    return await callFlow(host, loaded, args);
  } catch (error) {
    // A run that cannot start or go on (no model, a conflict, a role that may not start it) is the
    // client's to read, not a crash.
    if (error instanceof RunError || error instanceof ApiError)
      return toolError(`${error.code}: ${error.message}`);
    throw error;
  }
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function answerOf(result: ElicitResult): Awaited<ReturnType<NonNullable<FlowCallHost['elicit']>>> {
  return { action: result.action, content: result.content };
}

/** A definition as the SDK types a tool (the flow's schemas are JSON Schema objects, checked when loaded). */
function asTool(definition: FlowToolDefinition): Tool {
  return {
    ...definition,
    inputSchema: definition.inputSchema as Tool['inputSchema'],
    outputSchema: definition.outputSchema,
  };
}

function formParams(form: ElicitForm): ElicitRequestFormParams {
  return {
    mode: 'form',
    message: form.message,
    requestedSchema: form.requestedSchema as ElicitRequestFormParams['requestedSchema'],
  };
}
