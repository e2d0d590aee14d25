import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../server/helpers.js';
import { SEC, startTarget, type Target } from './helpers.js';

/**
 * An MCP server that crashes prints stack traces and server paths on stderr. Those lines used to be
 * part of the run's failure `message`, which every viewer of the run reads. Now they stay in the
 * server's log; the message names the server and how its process ended.
 */

const CANARY = '/srv/CANARY-internal/config.js:42';
let target: Target;

beforeAll(async () => {
  const crash = `process.stderr.write('Error: cannot open ${CANARY}\\n    at load (${CANARY})\\n'); setTimeout(() => process.exit(3), 20);`;
  const flowsDir = await tempDir({
    'crash.mjs': crash,
    'crash.yaml': [
      'id: crash',
      'locale: en',
      'model: scripted:./turns.yaml',
      'mcpServers: { broken: { command: node, args: [./crash.mjs] } }',
      'nodes: [{ id: main, tools: [lookup] }]',
      '',
    ].join('\n'),
    'turns.yaml': 'turns:\n  - { calls: [{ tool: lookup, args: {} }] }\n',
  });
  target = await startTarget({ flowsDir });
});
afterAll(async () => {
  await target.stop();
});

describe('MCP server stderr', () => {
  it('never reaches the run a viewer reads, nor its events; the message says the server exited and how', async () => {
    const started = await target.call('POST', '/v1/runs', {
      token: SEC.operator,
      json: { flowId: 'crash', input: 'x' },
    });
    expect(started.status).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    const deadline = Date.now() + 15_000;
    let run: { status: string; message?: string } = { status: 'running' };
    while (run.status === 'running' && Date.now() < deadline)
      run = (await (
        await target.call('GET', `/v1/runs/${runId}`, { token: SEC.viewer })
      ).json()) as typeof run;
    expect(run.status).toBe('failed');
    expect(run.message).toMatch(/MCP server broken/);
    expect(run.message).toMatch(/exited with code 3/);
    const seen = JSON.stringify(run);
    expect(seen).not.toContain('CANARY');
    const events = await target.call('GET', `/v1/runs/${runId}/events`, { token: SEC.viewer });
    expect(await events.text()).not.toContain('CANARY');
  });
});
