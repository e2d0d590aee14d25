import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Sandbox, type CliResult } from '../acceptance/cli.js';
import { useSandbox } from '../acceptance/scenario.js';
import { REPO_ROOT } from '../acceptance/build.js';

/**
 * Elicitation as a durable question (docs/mcp.md, "Elicitation"), with the official server-everything
 * over stdio and the CLI as subprocesses: the server's question suspends the run, `answer` in a second
 * process records the answer, and the call sent again gives it to the server.
 */

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const TOOL = 'trigger-elicitation-request';
const sandbox = useSandbox();

function setUp(box: Sandbox, calls: number): { flow: string; turns: string } {
  const flow = join(box.dir, 'elicit.flow.json');
  const turns = join(box.dir, 'elicit.turns.json');
  writeFileSync(
    flow,
    JSON.stringify({
      id: 'elicit',
      version: 1,
      locale: 'en',
      mcpServers: { everything: { command: 'node', args: [EVERYTHING, 'stdio'] } },
      tools: { [TOOL]: { write: false } },
      nodes: [{ id: 'main', instructions: 'Ask the server.', tools: [TOOL] }],
    }),
  );
  const call = { node: 'main', calls: [{ tool: TOOL, args: {} }] };
  writeFileSync(
    turns,
    JSON.stringify({
      turns: [
        ...Array.from({ length: calls }, () => call),
        { node: 'main', calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] },
      ],
    }),
  );
  return { flow, turns };
}

function invokedResults(result: CliResult): unknown[] {
  return result.events.filter((e) => e.type === 'tool.invoked' && e.tool === TOOL);
}

describe('MCP elicitation through the CLI', { timeout: 120_000 }, () => {
  it('suspends the run with the form, and completes after `answer` in a second process', async () => {
    const box = sandbox();
    const { flow, turns } = setUp(box, 2);
    const first = await box.run(flow, turns, 'ask me');
    expect(first.code, first.stderr).toBe(3);
    const pending = first.summary?.suspension?.pending as { question?: string; elicitation?: unknown };
    expect(first.summary?.suspension?.kind).toBe('FOLLOW_UP');
    expect(pending.question).toBe('Please provide inputs for the following fields:');
    expect(pending.elicitation).toMatchObject({
      server: 'everything',
      tool: TOOL,
      mode: 'form',
      requestedSchema: { type: 'object', required: ['name'] },
    });
    // The cancelled call left no evidence and no result.
    expect(invokedResults(first)).toEqual([]);

    // Content that does not fit the requested schema is refused, nothing changed (exit 2).
    const bad = await box.answer(first.summary!.runId, '{"integer": 500}');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/does not match the requested schema/);

    const done = await box.answer(first.summary!.runId, '{"name":"Ada Lovelace","check":true}');
    expect(done.code, done.stderr).toBe(0);
    expect(done.summary?.status).toBe('completed');
    const resumed = done.events.find((e) => e.type === 'run.resumed');
    expect(resumed).toMatchObject({ kind: 'FOLLOW_UP', action: 'accept' });
    const [answered, called] = done.events.filter((e) => e.type === 'tool.invoked');
    expect(answered).toMatchObject({ tool: TOOL, outcome: 'SUCCESS', executed: false });
    // The call sent again got the stored answer, its defaults filled in.
    expect(called).toMatchObject({ tool: TOOL, outcome: 'SUCCESS', executed: true });
    const text = JSON.stringify(called?.result);
    expect(text).toContain('Name: Ada Lovelace');
    expect(text).toContain('Favorite Integer: 42');
  });

  it('a declined question goes back to the server as decline', async () => {
    const box = sandbox();
    const { flow, turns } = setUp(box, 2);
    const first = await box.run(flow, turns, 'ask me');
    expect(first.code, first.stderr).toBe(3);
    const done = await box.cli(['answer', first.summary!.runId, '--decline']);
    expect(done.code, done.stderr).toBe(0);
    const called = invokedResults(done).at(-1) as { result?: unknown } | undefined;
    expect(JSON.stringify(called?.result)).toContain('User declined');
    const usage = await box.cli(['answer', first.summary!.runId, 'x', '--decline']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--decline takes no TEXT/);
  });
});
