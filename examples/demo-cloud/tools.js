// @ts-check
/**
 * The demo cloud's tools: spaces and web sites (the seed's domain) plus a few tools that exist only to make
 * the runtime's failure paths reproducible against a real server (slow_query, crash_server, strict_echo,
 * rpc_error, faulty_tool). Every business tool answers `{code, message, data}` (code 0 for ok) as structuredContent
 * and as JSON text.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { load, logCancel, logWrite, save } from './store.js';

/**
 * @typedef {import('./store.js').Reply} Reply
 * @typedef {import('./store.js').State} State
 * @typedef {{ type: 'text', text: string }} TextBlock
 * @typedef {{ content: TextBlock[], structuredContent?: Record<string, unknown>, isError?: boolean }} ToolResult
 * @typedef {{ dataDir: string, dedupe: boolean }} Options
 * @typedef {{ signal: AbortSignal, idempotencyKey: string | null, options: Options }} CallContext
 * @typedef {{ type: string, description?: string, enum?: string[], minimum?: number }} PropertySchema
 * @typedef {{ type: 'object', properties: Record<string, PropertySchema>, required?: string[], additionalProperties?: boolean }} InputSchema
 * @typedef {{ readOnlyHint: boolean, destructiveHint?: boolean, idempotentHint?: boolean }} Annotations
 * @typedef {{ name: string, description: string, inputSchema: InputSchema, annotations: Annotations,
 *   run: (args: Record<string, unknown>, ctx: CallContext) => Promise<ToolResult> | ToolResult }} ToolDef
 */

/** @param {Reply} reply @returns {ToolResult} */
function reply(reply) {
  return { content: [{ type: 'text', text: JSON.stringify(reply) }], structuredContent: { ...reply } };
}

const ok = (/** @type {unknown} */ data) => reply({ code: 0, message: 'ok', data });
const SPACE_MISSING = { code: 'system.40401', message: '空间不存在' };
const SITE_MISSING = { code: 'system.40402', message: '站点不存在' };
const NAME_TAKEN = { code: 'system.50001', message: '站点名称已存在' };

/** A site as shown to clients (without the demo's internal counters). @param {import('./store.js').Site} site */
function view(site) {
  return {
    siteId: site.siteId,
    spaceId: site.spaceId,
    name: site.name,
    plan: site.plan,
    status: site.status,
  };
}

/**
 * Runs one write: deduplicated by idempotency key when enabled, persisted, and appended to the write log.
 * @param {string} tool @param {Record<string, unknown>} args @param {CallContext} ctx
 * @param {(state: State) => Reply} execute
 */
function write(tool, args, ctx, execute) {
  const { dataDir, dedupe } = ctx.options;
  const state = load(dataDir);
  const key = ctx.idempotencyKey;
  const seen = dedupe && key ? state.idempotency[key] : undefined;
  if (seen) return reply(seen);
  const result = execute(state);
  if (dedupe && key) state.idempotency[key] = result;
  save(dataDir, state);
  logWrite(dataDir, { tool, args, idempotencyKey: key, reply: result });
  return reply(result);
}

/** @type {ToolDef[]} */
export const TOOLS = [
  {
    name: 'space_list',
    description: 'List the spaces of the current account.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
    run: (_args, ctx) => ok(load(ctx.options.dataDir).spaces),
  },
  {
    name: 'web_site_list',
    description: 'List the web sites of a space.',
    inputSchema: {
      type: 'object',
      properties: { spaceId: { type: 'string', description: 'space id from space_list' } },
      required: ['spaceId'],
    },
    annotations: { readOnlyHint: true },
    run: (args, ctx) => {
      const state = load(ctx.options.dataDir);
      if (!state.spaces.some((s) => s.spaceId === args.spaceId)) return reply(SPACE_MISSING);
      return ok(state.sites.filter((s) => s.spaceId === args.spaceId).map(view));
    },
  },
  {
    name: 'web_site_get',
    description: 'Get one web site. A new site is CREATING; it is ACTIVE from the second web_site_get on.',
    inputSchema: { type: 'object', properties: { siteId: { type: 'string' } }, required: ['siteId'] },
    annotations: { readOnlyHint: true },
    run: (args, ctx) => {
      const state = load(ctx.options.dataDir);
      const site = state.sites.find((s) => s.siteId === args.siteId);
      if (!site) return reply(SITE_MISSING);
      site.gets += 1;
      if (site.gets >= 2) site.status = 'ACTIVE';
      save(ctx.options.dataDir, state);
      return ok(view(site));
    },
  },
  {
    name: 'web_site_create',
    description: 'Create a web site in a space. Answers status CREATING; check it with web_site_get.',
    inputSchema: {
      type: 'object',
      properties: {
        spaceId: { type: 'string' },
        name: { type: 'string' },
        plan: { type: 'string', enum: ['basic', 'pro'] },
      },
      required: ['spaceId', 'name'],
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (args, ctx) =>
      write('web_site_create', args, ctx, (state) => {
        if (!state.spaces.some((s) => s.spaceId === args.spaceId)) return SPACE_MISSING;
        if (state.sites.some((s) => s.spaceId === args.spaceId && s.name === args.name)) return NAME_TAKEN;
        const site = {
          siteId: `site_${state.nextSiteNo++}`,
          spaceId: String(args.spaceId),
          name: String(args.name),
          plan: typeof args.plan === 'string' ? args.plan : 'basic',
          status: /** @type {const} */ ('CREATING'),
          gets: 0,
        };
        state.sites.push(site);
        return { code: 0, message: 'ok', data: view(site) };
      }),
  },
  {
    name: 'web_site_delete',
    description: 'Delete a web site.',
    inputSchema: { type: 'object', properties: { siteId: { type: 'string' } }, required: ['siteId'] },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    run: (args, ctx) =>
      write('web_site_delete', args, ctx, (state) => {
        const index = state.sites.findIndex((s) => s.siteId === args.siteId);
        if (index < 0) return SITE_MISSING;
        state.sites.splice(index, 1);
        return { code: 0, message: 'ok', data: { siteId: args.siteId, deleted: true } };
      }),
  },
  {
    name: 'slow_query',
    description: 'Sleeps for `ms` milliseconds, then answers (for timeouts). A cancelled call is logged.',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'] },
    annotations: { readOnlyHint: true },
    run: async (args, ctx) => {
      const ms = Number(args.ms);
      const started = Date.now();
      await sleep(ms, ctx.signal, (reason) => {
        logCancel(ctx.options.dataDir, { tool: 'slow_query', afterMs: Date.now() - started, reason });
      });
      return ok({ sleptMs: ms });
    },
  },
  {
    name: 'crash_server',
    description: 'Exits the server process without answering (for unreachable servers).',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: false, destructiveHint: true },
    run: () => {
      process.stderr.write('demo-cloud: crash_server called, exiting\n');
      process.exit(3);
    },
  },
  {
    name: 'strict_echo',
    description: 'Echoes `text` as plain text content. Bad arguments get a JSON-RPC -32602 error.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { readOnlyHint: true },
    run: (args) => ({ content: [{ type: 'text', text: String(args.text) }] }),
  },
  {
    name: 'rpc_error',
    description: 'Always answers a JSON-RPC -32603 internal error (a protocol-level failure).',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
    run: () => {
      throw new ProtocolError(ProtocolErrorCode.InternalError, 'demo internal error');
    },
  },
  {
    name: 'faulty_tool',
    description: 'Always reports a tool error (isError: true).',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
    run: () => ({ content: [{ type: 'text', text: '演示故障：存储不可用' }], isError: true }),
  },
];

/**
 * Resolves after `ms`, or rejects when `signal` aborts (calling `onAbort` first).
 * @param {number} ms @param {AbortSignal} signal @param {(reason: string) => void} onAbort
 * @returns {Promise<void>}
 */
function sleep(ms, signal, onAbort) {
  return new Promise((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer);
      const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
      onAbort(reason);
      reject(new Error(`cancelled: ${reason}`));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  });
}

/**
 * Checks arguments against the small JSON Schema subset the demo uses; returns the problems.
 * @param {InputSchema} schema @param {Record<string, unknown>} args @returns {string[]}
 */
export function validate(schema, args) {
  const problems = [];
  for (const field of schema.required ?? [])
    if (args[field] === undefined) problems.push(`${field} is required`);
  for (const [field, value] of Object.entries(args)) {
    const rule = schema.properties[field];
    if (!rule) continue;
    if (rule.type === 'string' && typeof value !== 'string') problems.push(`${field} must be a string`);
    if (rule.type === 'integer' && !Number.isInteger(value)) problems.push(`${field} must be an integer`);
    if (rule.enum && !rule.enum.includes(String(value)))
      problems.push(`${field} must be one of ${rule.enum.join(', ')}`);
    if (rule.minimum !== undefined && typeof value === 'number' && value < rule.minimum)
      problems.push(`${field} must be >= ${rule.minimum}`);
  }
  return problems;
}

/**
 * Runs a `tools/call`. Unknown tools and bad `strict_echo` arguments are JSON-RPC -32602 errors, `rpc_error`
 * is a -32603; bad arguments of the other tools are tool errors (isError), as SDK v2's McpServer does.
 * @param {string} name @param {Record<string, unknown>} args @param {CallContext} ctx @returns {Promise<ToolResult>}
 */
export async function callTool(name, args, ctx) {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const problems = validate(tool.inputSchema, args);
  if (problems.length > 0 && name === 'strict_echo') {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Invalid params for strict_echo: ${problems.join('; ')}`,
    );
  }
  if (problems.length > 0) {
    return {
      content: [{ type: 'text', text: `Input validation error: ${problems.join('; ')}` }],
      isError: true,
    };
  }
  return tool.run(args, ctx);
}
