import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../src/domain/flow.js';
import { openMcpConnection } from '../../src/mcp/connection.js';
import type { McpConnection } from '../../src/mcp/types.js';
import { REPO_ROOT } from '../acceptance/build.js';
import { useSandbox } from '../acceptance/scenario.js';

/**
 * Sampling (docs/mcp.md, "Sampling") with the official server-everything over stdio: only a server
 * entry with `sampling: true` may ask the node's model; the request and the answer are traced.
 */

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const TOOL = 'trigger-sampling-request';
const sandbox = useSandbox();
const opened: McpConnection[] = [];
afterEach(async () => {
  for (const c of opened.splice(0)) await c.close();
});

function open(config: McpServerConfig): McpConnection {
  const connection = openMcpConnection({ serverId: 'everything', config, baseDir: REPO_ROOT });
  opened.push(connection);
  return connection;
}

describe('MCP sampling', { timeout: 120_000 }, () => {
  it('is declared only with `sampling: true`: without it the server hides its sampling tool', async () => {
    const plain = await open({ command: 'node', args: [EVERYTHING, 'stdio'] }).listTools();
    const allowed = await open({ command: 'node', args: [EVERYTHING, 'stdio'], sampling: true }).listTools();
    expect(plain.map((t) => t.name)).not.toContain(TOOL);
    expect(allowed.map((t) => t.name)).toContain(TOOL);
    // Elicitation is always declared: its tools are there either way.
    expect(plain.map((t) => t.name)).toContain('trigger-elicitation-request');
  });

  it('with every capability granted server-everything exposes its conditional tools; `validate` names a withheld one', async () => {
    const granted = await open({
      command: 'node',
      args: [EVERYTHING, 'stdio'],
      sampling: true,
      roots: [{ uri: `file://${REPO_ROOT}`, name: 'repo' }],
    }).listTools();
    const names = granted.map((t) => t.name);
    for (const tool of ['get-roots-list', 'trigger-elicitation-request', 'trigger-url-elicitation', TOOL])
      expect(names).toContain(tool);
    const box = sandbox();
    const flow = join(box.dir, 'withheld.flow.json');
    writeFileSync(
      flow,
      JSON.stringify({
        id: 'withheld',
        version: 1,
        mcpServers: { everything: { command: 'node', args: [EVERYTHING, 'stdio'] } },
        nodes: [{ id: 'main', instructions: 'x', tools: [TOOL] }],
      }),
    );
    const refused = await box.cli(['validate', flow], { db: false, trace: false, json: false });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`no server exports a tool "${TOOL}"`);
    expect(refused.stderr).toContain(
      'everything is not offered sampling (`sampling: true`) or roots (`roots`)',
    );
    // `run` refuses the same flow with the same words, before any run exists.
    const turns = join(box.dir, 'withheld.turns.json');
    writeFileSync(turns, JSON.stringify({ turns: [] }));
    const run = await box.cli(['run', flow, '--input', 'x', '--model', `scripted:${turns}`], { json: false });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('everything is not offered sampling (`sampling: true`)');
  });

  it('answers the server through the node model, with request and result in the trace', async () => {
    const box = sandbox();
    const flow = join(box.dir, 'sample.flow.json');
    const turns = join(box.dir, 'sample.turns.json');
    writeFileSync(
      flow,
      JSON.stringify({
        id: 'sample',
        version: 1,
        locale: 'en',
        mcpServers: { everything: { command: 'node', args: [EVERYTHING, 'stdio'], sampling: true } },
        tools: { [TOOL]: { write: false } },
        nodes: [{ id: 'main', instructions: 'Let the server sample.', tools: [TOOL] }],
      }),
    );
    writeFileSync(
      turns,
      JSON.stringify({
        turns: [
          { node: 'main', calls: [{ tool: TOOL, args: { prompt: 'say hi', maxTokens: 20 } }] },
          { node: 'main', text: 'hi from the node model' },
          { node: 'main', calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] },
        ],
      }),
    );
    const r = await box.run(flow, turns, 'sample');
    expect(r.code, r.stderr).toBe(0);
    const requested = r.events.find((e) => e.type === 'sampling.requested');
    expect(requested).toMatchObject({
      nodeId: 'main',
      server: 'everything',
      tool: TOOL,
      maxTokens: 20,
      systemPrompt: 'You are a helpful test server.',
    });
    expect(JSON.stringify(requested?.messages)).toContain('say hi');
    expect(r.events.find((e) => e.type === 'sampling.completed')).toMatchObject({
      ok: true,
      text: 'hi from the node model',
    });
    const called = r.events.find((e) => e.type === 'tool.invoked' && e.tool === TOOL);
    expect(called).toMatchObject({ outcome: 'SUCCESS', executed: true });
    expect(JSON.stringify(called?.result)).toContain('hi from the node model');
  });
});
