import { resolve } from 'node:path';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createStderrLogger } from '../log/logger.js';
import { createRuntime } from '../runtime/create.js';
import { FlowRegistry } from '../server/flows.js';
import { createFlowMcpServer } from '../server/mcp-flow-server.js';
import { RequestStates } from '../server/mcp-input-required.js';
import { resolveDbUrl } from '../store/open.js';
import { COMMON, EXTENSIONS, parse, str, UsageError } from './args.js';
import { cliDb } from './context.js';
import { loadExtensions, runtimeExtensions, toolNames } from './extensions.js';

/** Usage of `agent-runtime mcp serve`. */
export const MCP_SERVE_USAGE = `Usage: agent-runtime mcp serve --flows DIR [--console-url URL] [--db URL] [--tools M] [--guards M]

  serve   offers each flow under DIR as an MCP tool over stdio (for Claude Desktop, Cursor, another
          agent): a call runs the flow; a write its gate holds is asked of the client when it takes
          elicitation (the local user is the operator; as input_required on 2026-07-28), else the
          call returns the run id and waits, and run_status gives the result once it was approved
          (agent-runtime approve, or the console of a \`serve\` on the same store, at
          --console-url). Logs go to stderr.`;

/**
 * `mcp serve --flows DIR` (docs/mcp.md, "Serving flows as MCP tools"): serves the flows over stdio
 * until stdin closes or SIGINT/SIGTERM, then closes the runtime; exit 0. A missing or empty --flows,
 * or a --console-url that is not an http(s) URL, is a usage error (exit 2).
 */
export async function mcpServe(argv: string[]): Promise<number> {
  const parsed = parse(
    'mcp serve',
    argv,
    { ...COMMON, ...EXTENSIONS, flows: { type: 'string' }, 'console-url': { type: 'string' } },
    { min: 0, max: 0, names: '' },
  );
  const dir = str(parsed, 'flows');
  if (dir === undefined) throw new UsageError(`mcp serve: give --flows DIR\n${MCP_SERVE_USAGE}`);
  const consoleUrl = consoleBase(str(parsed, 'console-url'));
  const extensions = await loadExtensions(parsed);
  const logger = createStderrLogger();
  const flows = new FlowRegistry({ dir: resolve(dir), logger, knownTools: toolNames(extensions) });
  const registered = await flows.loadDir();
  if (registered.length === 0)
    throw new UsageError(`mcp serve: no valid flow file under ${dir} (see the warnings above)`);
  const runtime = createRuntime({
    store: resolveDbUrl({ db: cliDb(parsed) }),
    env: process.env,
    cwd: process.cwd(),
    logger,
    ...runtimeExtensions(extensions),
  });
  const served = flows.list().flatMap((info) => flows.get(info.flowId) ?? []);
  const requestStates = new RequestStates();
  const handle = serveStdio(
    ({ era }) =>
      createFlowMcpServer({
        flows: () => served,
        logger,
        pushRequests: era === 'legacy',
        requestStates,
        host: (elicit) => ({
          runtime,
          // Over stdio the person at the client is the local user, the operator of this store.
          caller: { name: 'mcp-stdio', tenant: null, mayApprove: true },
          drive: (_runId, call) => call(() => undefined),
          consoleUrl: (runId) => (consoleUrl === null ? null : `${consoleUrl}/runs/${runId}`),
          elicit,
          logger,
        }),
      }),
    { onerror: (error) => logger.warn('MCP SERVE stdio error', { error: error.message }) },
  );
  logger.info('MCP SERVE serving flows over stdio', { flows: served.map((f) => f.flow.id).join(',') });
  await stdinClosedOrSignal();
  await handle.close();
  await runtime.stopDriving();
  await runtime.close();
  return 0;
}

function consoleBase(given: string | undefined): string | null {
  if (given === undefined) return null;
  const url = URL.canParse(given) ? new URL(given) : null;
  if (!url || !['http:', 'https:'].includes(url.protocol))
    throw new UsageError(
      `mcp serve: --console-url ${JSON.stringify(given)} is not an http(s) URL (e.g. http://127.0.0.1:8080)`,
    );
  return url.href.replace(/\/+$/, '');
}

function stdinClosedOrSignal(): Promise<void> {
  return new Promise((done) => {
    process.stdin.once('end', () => done());
    process.stdin.once('close', () => done());
    process.once('SIGINT', () => done());
    process.once('SIGTERM', () => done());
  });
}
