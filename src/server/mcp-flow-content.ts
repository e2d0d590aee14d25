import {
  ResourceNotFoundError,
  ProtocolError,
  ProtocolErrorCode,
  type CacheHint,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type Server,
} from '@modelcontextprotocol/server';
import type { LoadedFlow } from '../flow/load.js';
import type { FlowCallHost } from './mcp-flow-call.js';
import { flowToolDefinition } from './mcp-flow-tool.js';

/** The URI template of a run's resource: its summary as JSON. */
export const RUN_RESOURCE_TEMPLATE = 'agent-runtime://runs/{runId}';

/** Most runs `resources/list` names (the caller's newest runs of the served flows). */
export const MAX_LISTED_RUNS = 50;

const RUN_URI = /^agent-runtime:\/\/runs\/([^/?#]+)$/;

/**
 * The caching hints of the 2026-07-28 revision (ignored on the 2025 ones). Every result depends on the
 * caller (its tenant's runs, the flows its tenant sees), so none may be shared: `private`. The flows
 * reload when their files change and runs move on, so lists and reads are not to be reused (0); the
 * run template never changes (an hour).
 */
export const FLOW_SERVER_CACHE_HINTS: Readonly<Record<string, CacheHint>> = {
  'tools/list': { ttlMs: 0, cacheScope: 'private' },
  'prompts/list': { ttlMs: 0, cacheScope: 'private' },
  'resources/list': { ttlMs: 0, cacheScope: 'private' },
  'resources/templates/list': { ttlMs: 60 * 60 * 1000, cacheScope: 'private' },
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
};

/** What the prompts and resources of a server of flows read: the flows, and the caller's host. */
export interface FlowContentSource {
  flows(): readonly LoadedFlow[];
  host(): FlowCallHost;
}

/**
 * The prompts and resources of a server of flows (docs/mcp.md, "Prompts and resources"): a prompt per
 * flow ("Run <flow>", its input fields as arguments, telling the client's model to call the flow's
 * tool), and each run the caller may see as the resource `agent-runtime://runs/{runId}` (its summary
 * as JSON, under run_status's access rule: the caller's tenant only), its newest runs of the served
 * flows listed.
 */
export function registerFlowContent(server: Server, source: FlowContentSource): void {
  server.setRequestHandler('prompts/list', () => ({ prompts: source.flows().map(flowPrompt) }));
  server.setRequestHandler('prompts/get', (request) => {
    const loaded = source.flows().find((f) => f.flow.id === request.params.name);
    if (!loaded)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `unknown prompt ${JSON.stringify(request.params.name)}: prompts/list names the flows served`,
      );
    return promptMessages(loaded, request.params.arguments ?? {});
  });
  server.setRequestHandler('resources/templates/list', () => ({
    resourceTemplates: [
      {
        uriTemplate: RUN_RESOURCE_TEMPLATE,
        name: 'run',
        title: 'Run summary',
        description:
          'The summary of a run a flow tool started (status, reply, outputs, what it waits for), as JSON.',
        mimeType: 'application/json',
      },
    ],
  }));
  server.setRequestHandler('resources/list', async () => ({ resources: await recentRuns(source) }));
  server.setRequestHandler('resources/read', async (request) => readRun(source.host(), request.params.uri));
}

function flowPrompt(loaded: LoadedFlow): Prompt {
  const schema = flowToolDefinition(loaded.flow, false).inputSchema;
  const properties = (schema.properties ?? {}) as Record<string, { description?: unknown }>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return {
    name: loaded.flow.id,
    title: `Run ${loaded.flow.id}`,
    description: loaded.flow.description ?? `Runs the agent flow ${loaded.flow.id} through its tool.`,
    arguments: Object.entries(properties).map(([name, property]) => ({
      name,
      ...(typeof property.description === 'string' ? { description: property.description } : {}),
      required: required.has(name),
    })),
  };
}

function promptMessages(loaded: LoadedFlow, args: Record<string, string>): GetPromptResult {
  const id = loaded.flow.id;
  const missing = (flowPrompt(loaded).arguments ?? [])
    .filter((a) => a.required === true && args[a.name] === undefined)
    .map((a) => a.name);
  if (missing.length > 0)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `prompt ${id} needs the argument(s) ${missing.join(', ')}`,
    );
  const given = Object.keys(args).length === 0 ? '' : ` with these arguments: ${JSON.stringify(args)}`;
  return {
    description: `Run ${id}`,
    messages: [
      {
        role: 'user',
        content: {
          type: 'text',
          text: `Call the tool ${id}${given}. If it answers that the run waits for an approval or an answer, call run_status with its runId later for the result.`,
        },
      },
    ],
  };
}

async function recentRuns(source: FlowContentSource): Promise<Resource[]> {
  const host = source.host();
  const served = new Set(source.flows().map((f) => f.flow.id));
  const tenant = host.caller.tenant;
  const store = await host.runtime.db();
  const filter = { ...(tenant === null ? {} : { tenant }), limit: MAX_LISTED_RUNS * 4 };
  // Heads when the store has them: a listing never reads a run's state.
  const heads = store.listRunHeads ? await store.listRunHeads(filter) : await store.listRuns(filter);
  return heads
    .filter((h) => h.parentRunId === null && served.has(h.flowId))
    .slice(0, MAX_LISTED_RUNS)
    .map((h) => ({
      uri: runUri(h.runId),
      name: h.runId,
      title: `${h.flowId} run ${h.runId} (${h.status})`,
      mimeType: 'application/json',
    }));
}

async function readRun(host: FlowCallHost, uri: string): Promise<ReadResourceResult> {
  const runId = runIdOf(uri);
  if (runId === null)
    throw new ResourceNotFoundError(uri, `no resource ${uri}: the resources are ${RUN_RESOURCE_TEMPLATE}`);
  const record = await (await host.runtime.db()).getRun(runId);
  // Another tenant's run is as unknown as a missing one (run_status's rule).
  if (!record || (host.caller.tenant !== null && record.tenant !== host.caller.tenant))
    throw new ResourceNotFoundError(uri, `unknown run ${JSON.stringify(runId)}`);
  const summary = await host.runtime.status(record.runId);
  return {
    contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(summary, null, 2) }],
  };
}

function runIdOf(uri: string): string | null {
  const encoded = RUN_URI.exec(uri)?.[1];
  if (encoded === undefined) return null;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return null;
  }
}

function runUri(runId: string): string {
  return `agent-runtime://runs/${encodeURIComponent(runId)}`;
}
