#!/usr/bin/env node
// @ts-check
/**
 * crash-cloud: the MCP server (stdio) of the crash-injection suite's flow (examples/crash/flow.yaml);
 * its tools are in crash-tools.js. Env DEMO_CLOUD_DATA sets the data folder, as for demo-cloud.
 * Env CRASH_CLOUD_SLOW=`reply:MS` makes the writes execute at once but answer MS later (a write that
 * times out although it took effect; a long in-flight window); `execute:MS` waits MS before executing,
 * even when the caller gave up meanwhile (a server that commits after the caller looked back).
 * `reply:MS:web_site_create` slows only the tools listed. Like a remote
 * server, it finishes the calls it has started before it leaves when its client goes away.
 */
import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { dataDir } from '../demo-cloud/store.js';
import { CRASH_TOOLS, callCrashTool, parseSlowness } from './crash-tools.js';

const DIR = dataDir();
const SLOW = parseSlowness(process.env.CRASH_CLOUD_SLOW);
let running = 0;
let clientGone = false;

/** Leaves once the client has gone and no call is running any more. */
function exitWhenIdle() {
  if (clientGone && running === 0) setImmediate(() => process.exit(0));
}

function createServer() {
  const server = new Server({ name: 'crash-cloud', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({ tools: CRASH_TOOLS }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const meta = /** @type {Record<string, unknown>} */ ({ ...request.params._meta, ...ctx.mcpReq._meta });
    const key = typeof meta.idempotencyKey === 'string' ? meta.idempotencyKey : null;
    const args = /** @type {Record<string, unknown>} */ (request.params.arguments ?? {});
    running += 1;
    try {
      return await callCrashTool(request.params.name, args, {
        dataDir: DIR,
        idempotencyKey: key,
        signal: ctx.mcpReq.signal,
        slow: SLOW,
      });
    } finally {
      running -= 1;
      exitWhenIdle();
    }
  });
  return server;
}

serveStdio(createServer, {
  onerror: (error) => process.stderr.write(`crash-cloud: ${error.message}\n`),
});
// The client closing our stdin means the connection is over: leave once idle, so no process is orphaned.
process.stdin.on('end', () => {
  clientGone = true;
  exitWhenIdle();
});
