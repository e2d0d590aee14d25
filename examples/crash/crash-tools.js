// @ts-check
/**
 * The tools of crash-cloud (the crash-injection suite's MCP server, crash-cloud.js): demo-cloud's own
 * space_list, web_site_list and web_site_create (same code, same state file, same write log
 * `writes.jsonl` in the data folder) plus two writes with opposite contracts:
 *
 * - `web_site_publish` honours the idempotency key in the request's `_meta` (like demo-cloud with
 *   DEMO_CLOUD_DEDUPE=1): a key seen before answers the first reply again and executes nothing;
 * - `notify_send` ignores idempotency keys and leaves nothing a client could look up: the kind of
 *   write whose result is lost for good when its caller dies mid-call.
 *
 * Exported apart from the server so that a test can replay a write log into a fresh data folder
 * (the same calls, in the same order, give the same state).
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { load, logWrite, save } from '../demo-cloud/store.js';
import { callTool, TOOLS } from '../demo-cloud/tools.js';

/**
 * @typedef {import('../demo-cloud/store.js').Reply} Reply
 * @typedef {import('../demo-cloud/store.js').State} State
 * @typedef {import('../demo-cloud/tools.js').ToolResult} ToolResult
 * @typedef {State & { published?: Record<string, string>, notifications?: { channel: string, text: string }[] }} CrashState
 * @typedef {{ phase: 'reply' | 'execute', ms: number, tools: string[] }} Slowness
 * @typedef {{ dataDir: string, idempotencyKey: string | null, signal: AbortSignal, slow?: Slowness | null }} CrashCallContext
 */

const DEMO_TOOLS = ['space_list', 'web_site_list', 'web_site_create'];

/**
 * The tools as `tools/list` shows them.
 * @type {{ name: string, description: string, inputSchema: import('../demo-cloud/tools.js').InputSchema, annotations: import('../demo-cloud/tools.js').Annotations }[]}
 */
export const CRASH_TOOLS = [
  ...TOOLS.filter((t) => DEMO_TOOLS.includes(t.name)).map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema,
    annotations: t.annotations,
  })),
  {
    name: 'web_site_publish',
    description: 'Publish a version of a web site. Deduplicates by the request idempotency key.',
    inputSchema: {
      type: 'object',
      properties: { siteId: { type: 'string' }, version: { type: 'string' } },
      required: ['siteId', 'version'],
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  },
  {
    name: 'notify_send',
    description: 'Send a message to a channel. Every call sends one more message.',
    inputSchema: {
      type: 'object',
      properties: { channel: { type: 'string' }, text: { type: 'string' } },
      required: ['channel', 'text'],
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  },
];

const WRITES = ['web_site_create', 'web_site_publish', 'notify_send'];

/**
 * Parses CRASH_CLOUD_SLOW: `reply:MS` (execute at once, answer MS later) or `execute:MS` (wait MS, then
 * execute even when the caller gave up meanwhile), optionally followed by `:tool,tool` (default: the
 * three writes); anything else is null.
 * @param {string | undefined} value @returns {Slowness | null}
 */
export function parseSlowness(value) {
  const match = /^(reply|execute):(\d+)(?::([\w,]+))?$/.exec(value ?? '');
  if (!match) return null;
  const tools = match[3] ? match[3].split(',') : WRITES;
  return { phase: match[1] === 'reply' ? 'reply' : 'execute', ms: Number(match[2]), tools };
}

/** @param {Reply} body @returns {ToolResult} */
function reply(body) {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: { ...body } };
}

/**
 * Executes one write of this server: deduplicated by key when `dedupe`, persisted, and logged.
 * @param {string} tool @param {Record<string, unknown>} args @param {CrashCallContext} ctx @param {boolean} dedupe
 * @param {(state: CrashState) => Reply} execute @returns {ToolResult}
 */
function write(tool, args, ctx, dedupe, execute) {
  const state = /** @type {CrashState} */ (load(ctx.dataDir));
  const key = ctx.idempotencyKey;
  const seen = dedupe && key ? state.idempotency[key] : undefined;
  if (seen) return reply(seen);
  const result = execute(state);
  if (dedupe && key) state.idempotency[key] = result;
  save(ctx.dataDir, state);
  logWrite(ctx.dataDir, { tool, args, idempotencyKey: key, reply: result });
  return reply(result);
}

/** @param {number} ms @param {AbortSignal | null} signal @returns {Promise<void>} */
function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** @param {Record<string, unknown>} args @param {CrashCallContext} ctx @returns {ToolResult} */
function publish(args, ctx) {
  return write('web_site_publish', args, ctx, true, (state) => {
    const site = state.sites.find((s) => s.siteId === args.siteId);
    if (!site) return { code: 'system.40402', message: '站点不存在' };
    state.published = { ...state.published, [site.siteId]: String(args.version) };
    return { code: 0, message: 'ok', data: { siteId: site.siteId, version: args.version } };
  });
}

/** @param {Record<string, unknown>} args @param {CrashCallContext} ctx @returns {ToolResult} */
function notify(args, ctx) {
  return write('notify_send', args, ctx, false, (state) => {
    const sent = { channel: String(args.channel), text: String(args.text) };
    state.notifications = [...(state.notifications ?? []), sent];
    return { code: 0, message: 'ok', data: { messageNo: state.notifications.length } };
  });
}

/**
 * Runs one `tools/call` of crash-cloud. Unknown tools are JSON-RPC -32602 errors.
 * @param {string} name @param {Record<string, unknown>} args @param {CrashCallContext} ctx
 * @returns {Promise<ToolResult>}
 */
export async function callCrashTool(name, args, ctx) {
  const slow = ctx.slow?.tools.includes(name) ? ctx.slow : null;
  if (slow?.phase === 'execute') await sleep(slow.ms, null);
  const result = await execute(name, args, ctx);
  if (slow?.phase === 'reply') await sleep(slow.ms, ctx.signal);
  return result;
}

/** @param {string} name @param {Record<string, unknown>} args @param {CrashCallContext} ctx @returns {Promise<ToolResult>} */
async function execute(name, args, ctx) {
  if (name === 'web_site_publish') return publish(args, ctx);
  if (name === 'notify_send') return notify(args, ctx);
  if (!DEMO_TOOLS.includes(name))
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const options = { dataDir: ctx.dataDir, dedupe: false };
  return callTool(name, args, { signal: ctx.signal, idempotencyKey: ctx.idempotencyKey, options });
}
