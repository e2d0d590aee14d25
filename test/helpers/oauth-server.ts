import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** The OAuth-protected MCP server of the Connect tests (test/mcp/fixtures/oauth-http-server.mjs). */
export const OAUTH_SERVER = join(import.meta.dirname, '../mcp/fixtures/oauth-http-server.mjs');

/** A running OAuth-protected MCP server: its base URL (`<base>/mcp` is the MCP endpoint) and process. */
export interface OAuthServer {
  readonly base: string;
  readonly child: ChildProcess;
}

/** Starts the server process (with `env` added, e.g. REVOKE_AFTER_CALLS); resolves once it listens. */
export function startOAuthServer(env: Record<string, string> = {}): Promise<OAuthServer> {
  const child = spawn(process.execPath, [OAUTH_SERVER], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^(http\S+)\n/.exec(out);
      if (line) resolve({ base: line[1] as string, child });
    });
    child.on('exit', (code) => reject(new Error(`the OAuth test server exited with ${String(code)}`)));
  });
}

/** The flow of the Connect tests: one node seeing the server's `whoami`, a scripted model in ./turns.yaml. */
export function connectFlowYaml(base: string): string {
  return `id: wiki
locale: en
model: scripted:./turns.yaml
mcpServers:
  wiki:
    url: ${base}/mcp
    auth: { grant: authorization_code }
input:
  type: object
  properties: { text: { type: string } }
nodes:
  - id: main
    tools: [whoami]
`;
}

/** The scripted turns: `whoami` `calls` times, then finish with the summary "done". */
export function connectTurnsYaml(calls: number): string {
  const call = '  - { calls: [{ tool: whoami, args: {} }] }\n';
  return `turns:\n${call.repeat(calls)}  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }\n`;
}

/**
 * Plays the person's browser for an authorization URL the runtime shows: opens it (the test
 * authorization server approves at once) and follows its redirect to the loopback. Returns at once;
 * `pending` collects the visits so that a test can wait for them.
 */
export function browserFor(pending: Promise<void>[]): (url: URL) => void {
  return (url) => {
    pending.push(
      (async () => {
        const answer = await fetch(url, { redirect: 'manual' });
        const location = answer.headers.get('location');
        if (location) await (await fetch(location)).text();
      })(),
    );
  };
}

/** GET `<base><path>` of the test server as JSON (its records: /issued, /seen, /dpop, /token-requests). */
export async function record<T>(server: OAuthServer, path: string): Promise<T> {
  return (await (await fetch(`${server.base}${path}`)).json()) as T;
}

/** Stops the server process and waits until it exited. */
export async function stopOAuthServer(server: OAuthServer): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}
