import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRuntime, type CreateRuntimeOptions } from '../../src/runtime/create.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { createServer, type ApiServer, type ServerOptions } from '../../src/server/app.js';
import { FlowRegistry } from '../../src/server/flows.js';
import { parseTokens } from '../../src/server/tokens.js';

/** Tokens of the tests: one per role, and two tenants' operators and viewer. */
export const TOKENS = {
  admin: 'admin-token-0123456789',
  operator: 'operator-token-0123456789',
  viewer: 'viewer-token-0123456789',
  tenantA: 'tenant-a-operator-token-01',
  tenantB: 'tenant-b-operator-token-01',
  viewerA: 'tenant-a-viewer-token-0123',
} as const;

/** The token list of TOKENS, as a tokens file would give it. */
export const TOKEN_LIST = [
  { token: TOKENS.admin, role: 'admin', name: 'root' },
  { token: TOKENS.operator, role: 'operator', name: 'olivia' },
  { token: TOKENS.viewer, role: 'viewer', name: 'victor' },
  { token: TOKENS.tenantA, role: 'operator', tenant: 'acme', name: 'alice' },
  { token: TOKENS.tenantB, role: 'operator', tenant: 'globex', name: 'bob' },
  { token: TOKENS.viewerA, role: 'viewer', tenant: 'acme', name: 'ann' },
];

/** The API app with its runtime, answering requests in this process (`app.request`), with no socket. */
export interface TestApp {
  server: ApiServer;
  runtime: Runtime;
  /** A request with an optional bearer token, JSON or raw body and headers. */
  call(method: string, path: string, options?: CallOptions): Promise<Response>;
  /** Shuts the server down and closes the runtime. */
  stop(): Promise<void>;
}

/** A running API server on a random loopback port, with its runtime; `call` goes over TCP. */
export interface TestServer extends TestApp {
  url: string;
}

/** Options of one request. */
export interface CallOptions {
  token?: string;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
}

/** What `openApp` and `startServer` take. */
export interface TestServerOptions {
  flowsDir?: string;
  runtime?: CreateRuntimeOptions;
  server?: Partial<ServerOptions>;
  tokens?: null;
}

/**
 * The server with TOKEN_LIST (unless `tokens: null`) and the flows of `flowsDir`, answering in process:
 * for suites about routes, auth, validation and run handling, where a socket adds nothing. Without
 * tokens the server accepts loopback callers only, which needs a socket: use `startServer` then.
 */
export async function openApp(options: TestServerOptions = {}): Promise<TestApp> {
  const runtime = createRuntime({ store: 'memory', logger: false, ...options.runtime });
  const flows = new FlowRegistry({
    dir: options.flowsDir ?? null,
    knownTools: (options.runtime?.tools ?? []).map((t) => t.descriptor.name),
  });
  await flows.loadDir();
  const server = createServer({
    runtime,
    flows,
    tokens: options.tokens === null ? null : parseTokens(TOKEN_LIST, 'test'),
    logger: quietLogger,
    ...options.server,
  });
  let stopped = false;
  return {
    server,
    runtime,
    call: (method, path, o = {}) => Promise.resolve(server.app.request(path, { method, ...requestInit(o) })),
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.close();
      await runtime.close();
    },
  };
}

/** `openApp`'s server listening on a random loopback port; `call` is a fetch over TCP. */
export async function startServer(options: TestServerOptions = {}): Promise<TestServer> {
  const app = await openApp(options);
  const { url } = await app.server.listen({ host: '127.0.0.1', port: 0 });
  return {
    ...app,
    url,
    call: (method, path, o = {}) => fetch(`${url}${path}`, { method, ...requestInit(o) }),
  };
}

function requestInit(o: CallOptions): { headers: Record<string, string>; body?: string } {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  let body: string | undefined = o.body;
  if (o.json !== undefined) {
    body = JSON.stringify(o.json);
    headers['content-type'] ??= 'application/json';
  }
  return { headers, ...(body !== undefined ? { body } : {}) };
}

/** A logger that keeps records for assertions instead of printing them. */
export const quietLogger = {
  records: [] as { level: string; message: string }[],
  debug(): void {},
  info(): void {},
  warn(message: string): void {
    quietLogger.records.push({ level: 'warn', message });
  },
  error(message: string): void {
    quietLogger.records.push({ level: 'error', message });
  },
};

/** Writes files (path → text) into a fresh temp folder and returns it. */
export async function tempDir(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'server-test-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

/** One message of an event stream. */
export interface SseMessage {
  id?: string;
  data?: string;
  comment?: string;
}

/** An open SSE connection read with fetch streaming (as a browser would, with the Authorization header). */
export interface SseReader {
  status: number;
  /** The next message (comments included), or null when the server closed the stream. */
  next(): Promise<SseMessage | null>;
  /** Trace events until the stream closes (or `until` returns true for one), skipping comments. */
  events(
    until?: (event: { seq: number; type: string }) => boolean,
  ): Promise<{ seq: number; type: string; [k: string]: unknown }[]>;
  close(): void;
}

/** Opens `GET /v1/runs/{id}/events`. */
export async function openEvents(
  url: string,
  runId: string,
  options: { token?: string; lastEventId?: string; after?: number } = {},
): Promise<SseReader> {
  const controller = new AbortController();
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  const query = options.after !== undefined ? `?after=${options.after}` : '';
  const response = await fetch(`${url}/v1/runs/${runId}/events${query}`, {
    headers,
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const next = async (): Promise<SseMessage | null> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        return parseFrame(frame);
      }
      const chunk = await reader.read();
      if (chunk.done) return null;
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
  return {
    status: response.status,
    next,
    async events(until) {
      const out: { seq: number; type: string; [k: string]: unknown }[] = [];
      for (;;) {
        const message = await next();
        if (message === null) return out;
        if (message.data === undefined) continue;
        const event = JSON.parse(message.data) as { seq: number; type: string };
        if (String(event.seq) !== message.id)
          throw new Error(`SSE id ${message.id} is not the event's seq ${event.seq}`);
        out.push(event);
        if (until?.(event)) return out;
      }
    },
    close: () => controller.abort(),
  };
}

function parseFrame(frame: string): SseMessage {
  const message: SseMessage = {};
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) message.comment = line.slice(1).trim();
    else if (line.startsWith('id: ')) message.id = line.slice(4);
    else if (line.startsWith('data: '))
      message.data = (message.data === undefined ? '' : `${message.data}\n`) + line.slice(6);
  }
  return message;
}

/** Waits until the run ends, following its events in-process (no polling). */
export async function settled(runtime: Runtime, runId: string): Promise<void> {
  for await (const event of runtime.events(runId)) void event;
}

/** Waits (in-process, no polling) until the run has traced an event of `type`. */
export async function reached(runtime: Runtime, runId: string, type: string): Promise<void> {
  for await (const event of runtime.events(runId)) if (event.type === type) return;
  throw new Error(`run ${runId} ended without ${type}`);
}

/** POSTs a start and returns the run id (asserting 201). */
export async function startRun(t: TestApp, token: string, body: unknown): Promise<string> {
  const response = await t.call('POST', '/v1/runs', { token, json: body });
  const json = (await response.json()) as { runId?: string };
  if (response.status !== 201 || !json.runId)
    throw new Error(`start answered ${response.status}: ${JSON.stringify(json)}`);
  return json.runId;
}
