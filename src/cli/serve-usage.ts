import type { ParseArgsOptionsConfig } from 'node:util';
import { COMMON, EXTENSIONS } from './args.js';

/**
 * The options `serve` accepts. Kept apart from serve.ts (which loads the HTTP server) so that
 * `serve --help` prints without loading it, and so a test can check that the usage names each one.
 */
export const SERVE_OPTIONS: ParseArgsOptionsConfig = {
  ...COMMON,
  ...EXTENSIONS,
  host: { type: 'string' },
  port: { type: 'string' },
  flows: { type: 'string' },
  tokens: { type: 'string' },
  durability: { type: 'string' },
  watch: { type: 'boolean' },
  'scripted-models': { type: 'string' },
  'allow-stdio': { type: 'string', multiple: true },
  'allow-mcp-host': { type: 'string', multiple: true },
  'allow-env': { type: 'string', multiple: true },
  'allow-stdio-env': { type: 'string', multiple: true },
  'max-streams-per-token': { type: 'string' },
  'max-flows': { type: 'string' },
  'max-flow-bytes': { type: 'string' },
  'max-mcp-connections': { type: 'string' },
  'mcp-idle-ms': { type: 'string' },
  'public-url': { type: 'string' },
  webhooks: { type: 'string' },
  'allow-webhook-host': { type: 'string', multiple: true },
};

/** `agent-runtime serve --help` (docs/cli.md, docs/api.md, docs/security.md). */
export const SERVE_USAGE = `usage: agent-runtime serve [options]

the HTTP API (docs/api.md) and the web console, until SIGINT/SIGTERM; prints the URL on stdout.

  --host H                   address to listen on (default 127.0.0.1; another needs tokens)
  --port P                   port (default 8080; 0: a free one)
  --db URL                   the store (default: env AGENT_RUNTIME_DB, else sqlite:.agent-runtime/runtime.db)
  --durability normal|strict SQLite synchronous=NORMAL (default) or FULL
  --flows DIR                register the flow files under DIR (trusted: they may start any MCP server)
  --watch                    with --flows: register a changed flow file again without a restart
  --tokens FILE              bearer tokens (default: env AGENT_RUNTIME_TOKENS; none: no auth, loopback only)
  --guards MODULE            user guards: a module exporting guards made with defineGuard (repeatable;
                             docs/interceptors.md)
  --tools MODULE             a module exporting local tools (defineTool) and builtins (defineBuiltin) (repeatable)
  --public-url URL           the URL browsers reach this server at (behind a proxy): the MCP OAuth redirect
                             is URL/v1/oauth/callback (docs/mcp.md, "Connect"; default: the listening URL)
  --json                     accepted for symmetry with the other commands; the log is always lines on stderr

what a request may make the server do (default: nothing; docs/security.md):
  --scripted-models DIR      accept scripted: models named by requests, only files inside DIR
  --allow-stdio COMMAND      a command stdio MCP servers of flows sent over HTTP may run (exact match; repeatable)
  --allow-mcp-host HOST      a host (any port) or HOST:PORT HTTP MCP servers of flows sent over HTTP
                             may be on, and every host contacted for them (OAuth, redirects; repeatable)
  --allow-env VAR            a server environment variable flows sent over HTTP may reference as \${VAR}
                             in an MCP server's env, headers or auth secrets (repeatable); others are refused
  --allow-stdio-env NAME     a variable flows sent over HTTP may set in a stdio MCP server's env
                             (repeatable; others are refused; loader hooks such as NODE_OPTIONS never)
  --max-streams-per-token N  event streams one token may hold open at once (default 16; 429 beyond)
  --max-flows N              flows one tenant may upload (distinct ids; default 1000; 409 FLOW_LIMIT beyond)
  --max-flow-bytes N         bytes of uploaded flow text one tenant may hold (default 16777216; 409 beyond)
  --max-mcp-connections N    MCP connections one tenant may hold open (default 32): one more closes its
                             least recently used idle one; with all busy the tool call fails TOOL_UNREACHABLE
  --mcp-idle-ms MS           close an MCP connection (ending a stdio server) unused this long
                             (default 300000; 0: never); the next call connects again

notifications (docs/notifications.md):
  --webhooks FILE            POST signed notifications of run events to the webhooks of FILE (YAML or JSON
                             list of {url, events, secret}); retried with backoff, logged at
                             GET /v1/webhooks/deliveries
  --allow-webhook-host HOST  a host (any port) or HOST:PORT webhooks may be on (repeatable; a webhook on
                             another host is refused at start)

  -h, --help                 this text`;
