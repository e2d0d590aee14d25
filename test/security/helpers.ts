import { createRuntime, type CreateRuntimeOptions } from '../../src/runtime/create.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { createServer, type ApiServer, type ServerOptions } from '../../src/server/app.js';
import { mountConsole } from '../../src/server/console.js';
import { FlowRegistry } from '../../src/server/flows.js';
import { parseTokens } from '../../src/server/tokens.js';
import { quietLogger, tempDir, type CallOptions } from '../server/helpers.js';

/** Tokens of the security tests: instance roles, and admins, operators and viewers of two tenants. */
export const SEC = {
  admin: 'sec-admin-token-000000000001',
  operator: 'sec-operator-token-00000001',
  viewer: 'sec-viewer-token-0000000001',
  acmeAdmin: 'sec-acme-admin-token-000001',
  betaAdmin: 'sec-beta-admin-token-000001',
  acmeOperator: 'sec-acme-operator-token-01',
  betaOperator: 'sec-beta-operator-token-01',
  acmeViewer: 'sec-acme-viewer-token-0001',
} as const;

const TOKEN_LIST = [
  { token: SEC.admin, role: 'admin', name: 'root' },
  { token: SEC.operator, role: 'operator', name: 'olivia' },
  { token: SEC.viewer, role: 'viewer', name: 'victor' },
  { token: SEC.acmeAdmin, role: 'admin', tenant: 'acme', name: 'acme-admin' },
  { token: SEC.betaAdmin, role: 'admin', tenant: 'beta', name: 'beta-admin' },
  { token: SEC.acmeOperator, role: 'operator', tenant: 'acme', name: 'acme-op' },
  { token: SEC.betaOperator, role: 'operator', tenant: 'beta', name: 'beta-op' },
  { token: SEC.acmeViewer, role: 'viewer', tenant: 'acme', name: 'acme-viewer' },
];

/** A server under attack: real HTTP on a loopback port, the console mounted, a memory or SQLite store. */
export interface Target {
  url: string;
  server: ApiServer;
  runtime: Runtime;
  call(method: string, path: string, options?: CallOptions): Promise<Response>;
  stop(): Promise<void>;
}

/** Starts a target with the tokens above (the flows of `flowsDir` registered as shared flows). */
export async function startTarget(
  options: { flowsDir?: string; runtime?: CreateRuntimeOptions; server?: Partial<ServerOptions> } = {},
): Promise<Target> {
  const runtime = createRuntime({ store: 'memory', logger: false, ...options.runtime });
  const flows = new FlowRegistry({
    dir: options.flowsDir ?? null,
    knownTools: (options.runtime?.tools ?? []).map((t) => t.descriptor.name),
  });
  await flows.loadDir();
  const server = createServer({
    runtime,
    flows,
    tokens: parseTokens(TOKEN_LIST, 'test'),
    logger: quietLogger,
    ...options.server,
  });
  mountConsole(server.app, { dir: await tempDir({ 'index.html': '<!doctype html><title>console</title>' }) });
  const { url } = await server.listen({ host: '127.0.0.1', port: 0 });
  const call = (method: string, path: string, o: CallOptions = {}): Promise<Response> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | undefined = o.body;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers['content-type'] ??= 'application/json';
    }
    return fetch(`${url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  };
  let stopped = false;
  return {
    url,
    server,
    runtime,
    call,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.close();
      await runtime.close();
    },
  };
}

/** The error of a non-2xx answer, with its status. */
export async function errorOf(
  response: Response,
): Promise<{ status: number; code: string; message: string; problems?: string[] }> {
  const body = (await response.json()) as { error: { code: string; message: string; problems?: string[] } };
  return { status: response.status, ...body.error };
}

/** A flow whose one node only lists (a local tool), with a scripted model of two turns. */
export function quickFlow(
  id: string,
  version: number,
  model = 'scripted:quick.yaml',
): Record<string, unknown> {
  return { id, version, locale: 'en', model, nodes: [{ id: 'main', tools: ['ticket_list'] }] };
}

/** The two turns of quickFlow: one list, finish. */
export const QUICK_TURNS = `turns:
  - { calls: [{ tool: ticket_list, args: {} }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;
