import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { createRuntime } from '../../src/runtime/create.js';
import { callFlow, runStatus, type FlowCallHost } from '../../src/server/mcp-flow-call.js';
import { flowWrites, type FlowCallResult } from '../../src/server/mcp-flow-tool.js';
import { demoStdioConfig } from '../helpers/demo-server.js';
import { sqliteUrl } from '../runtime/helpers.js';

/**
 * The call logic behind both transports (src/server/mcp-flow-call.ts) on a real runtime and demo
 * server: a run that takes longer than the call may wait is answered `running` with its id and goes
 * on; run_status waits for it and gives the reply. A flow of read tools only is read-only.
 */

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function slowFlow() {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-flow-call-'));
  open.push({ close: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })) });
  writeFileSync(
    join(dir, 'turns.yaml'),
    [
      'turns:',
      '  - { node: look, calls: [{ tool: slow_query, args: { ms: 4000 } }] }',
      '  - { node: look, calls: [{ tool: builtin_node_finish, args: { summary: looked slowly } }] }',
      '',
    ].join('\n'),
  );
  const loaded = await loadFlow(
    {
      id: 'slow',
      locale: 'en',
      model: 'scripted:./turns.yaml',
      mcpServers: { cloud: demoStdioConfig().config },
      nodes: [{ id: 'look', instructions: 'Look.', tools: ['slow_query'] }],
    },
    { baseDir: dir },
  );
  const runtime = createRuntime({ store: sqliteUrl(), logger: false });
  open.push(runtime);
  return { loaded, runtime };
}

describe('flow calls', () => {
  it('answers running after waitMs, and run_status gives the reply once the run completed', async () => {
    const { loaded, runtime } = await slowFlow();
    const host: FlowCallHost = {
      runtime,
      caller: { name: 'test', tenant: null, mayApprove: true },
      drive: (_runId, call) => call(() => undefined),
      consoleUrl: () => null,
      elicit: null,
      waitMs: 1500,
    };
    const first = (await callFlow(host, loaded, { text: 'look' })) as FlowCallResult;
    expect(first.isError).toBe(false);
    expect(first.structuredContent).toMatchObject({ status: 'running' });
    expect(first.content[0]?.text).toContain('run_status');
    const runId = first.structuredContent.runId as string;
    const done = await runStatus(host, runId, 60);
    expect(done?.structuredContent).toMatchObject({ status: 'completed', runId, reply: 'looked slowly' });
    // Another tenant's caller does not see the run.
    const stranger = { ...host, caller: { name: 'x', tenant: 'other', mayApprove: true } };
    expect(await runStatus(stranger, runId, 0)).toBeNull();
  }, 60_000);

  it('a flow whose tools its server annotates read-only is read-only', async () => {
    const { loaded } = await slowFlow();
    expect(await flowWrites(loaded)).toBe(false);
  }, 60_000);
});
