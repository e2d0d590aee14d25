import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, loadFlow, type Runtime } from '../../src/index.js';
import type { StoredEvent } from '../../src/store/store.js';
import { SERVER_LOG_MAX_EVENTS } from '../../src/engine/server-log-trace.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
import { recordingModel, sqliteUrl } from '../runtime/helpers.js';

/** A stdio server whose `work` tool logs `count` messages (debug, info, warning, error in turn). */
const LOG_SERVER = join(REPO_ROOT, 'test/fixtures/mcp/log-server.mjs');

const runtimes: Runtime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

async function logsOf(server: Record<string, unknown>, counts: number[]): Promise<StoredEvent[][]> {
  const runtime = createRuntime({ store: sqliteUrl(), logger: false });
  runtimes.push(runtime);
  const flow = await loadFlow({
    id: 'logging',
    locale: 'en',
    mcpServers: { logger: { command: process.execPath, args: [LOG_SERVER], ...server } },
    nodes: [{ id: 'go', tools: ['work'] }],
  });
  const model = recordingModel(...counts.map((count) => ({ calls: [{ tool: 'work', args: { count } }] })), {
    calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }],
  });
  const summary = await runtime.start(flow, { input: { text: 'go' }, model });
  expect(summary.status).toBe('completed');
  const events: StoredEvent[] = [];
  for await (const e of runtime.events(summary.runId, { follow: false })) events.push(e);
  // Each message comes before its call's tool.invoked.
  for (const log of events.filter((e) => e.type === 'mcp.log')) {
    const invoked = events.find((e) => e.type === 'tool.invoked' && e.callId === log.callId);
    expect(invoked?.seq).toBeGreaterThan(log.seq);
  }
  return counts.map((_, i) => events.filter((e) => e.type === 'mcp.log' && e.round === i + 1));
}

describe('server log messages (notifications/message) as mcp.log events', () => {
  it('traces each message of a call before its tool.invoked, with server, level, logger and data', async () => {
    const [logs] = await logsOf({}, [4]);
    expect(logs?.map((e) => e.level)).toEqual(['debug', 'info', 'warning', 'error']);
    expect(logs?.[2]).toMatchObject({
      type: 'mcp.log',
      nodeId: 'go',
      round: 1,
      tool: 'work',
      server: 'logger',
      level: 'warning',
      logger: 'worker',
      data: '{"step":3}',
    });
    expect(typeof logs?.[0]?.callId).toBe('string');
  }, 30_000);

  it('logLevel asks the server for that level and above (logging/setLevel, 2025)', async () => {
    const [logs] = await logsOf({ logLevel: 'warning' }, [8]);
    expect(logs?.map((e) => e.level)).toEqual(['warning', 'error', 'warning', 'error']);
  }, 30_000);

  it('logLevel reaches a 2026-07-28 session in each request’s _meta', async () => {
    const [quiet] = await logsOf({ protocol: '2026-07-28' }, [4]);
    // The 2026 revision sends a request no log messages unless it names a level.
    expect(quiet).toEqual([]);
    const [logs] = await logsOf({ protocol: '2026-07-28', logLevel: 'error' }, [8]);
    expect(logs?.map((e) => e.level)).toEqual(['error', 'error']);
  }, 30_000);

  it('a chatty server is capped per call, and the last traced says so', async () => {
    const [first, second] = await logsOf({}, [SERVER_LOG_MAX_EVENTS + 20, 1]);
    expect(first).toHaveLength(SERVER_LOG_MAX_EVENTS);
    expect(first?.at(-1)).toMatchObject({ capped: true });
    expect(first?.slice(0, -1).some((e) => 'capped' in e)).toBe(false);
    // The cap is per call: the next call's message is traced.
    expect(second).toHaveLength(1);
  }, 30_000);
});
