import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliResult, Sandbox } from '../acceptance/cli.js';
import { useSandbox } from '../acceptance/scenario.js';
import { REPO_ROOT } from '../acceptance/build.js';

/**
 * A server's question held open (`elicitationHoldSeconds`, docs/mcp.md "Holding the request open"),
 * with the official server-everything over stdio and the CLI as subprocesses: a person answering in a
 * second process within the hold gets the answer to the server on its first request (one call, no
 * suspension); after the hold the run suspends and the call is sent again as without a hold.
 */

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const TOOL = 'trigger-elicitation-request';
const ANSWER = '{"name":"Ada Lovelace","check":true}';
const sandbox = useSandbox();

function setUp(box: Sandbox, holdSeconds: number, calls: number): { flow: string; turns: string } {
  const flow = join(box.dir, 'hold.flow.json');
  const turns = join(box.dir, 'hold.turns.json');
  writeFileSync(
    flow,
    JSON.stringify({
      id: 'hold',
      version: 1,
      locale: 'en',
      mcpServers: {
        everything: { command: 'node', args: [EVERYTHING, 'stdio'], elicitationHoldSeconds: holdSeconds },
      },
      limits: { toolTimeoutMs: 120_000 },
      tools: { [TOOL]: { write: false } },
      nodes: [{ id: 'main', instructions: 'Ask the server.', tools: [TOOL] }],
    }),
  );
  const call = { node: 'main', calls: [{ tool: TOOL, args: {} }] };
  const finish = { node: 'main', calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] };
  writeFileSync(turns, JSON.stringify({ turns: [...Array.from({ length: calls }, () => call), finish] }));
  return { flow, turns };
}

const invoked = (result: CliResult) =>
  result.events.filter((e) => e.type === 'tool.invoked' && e.tool === TOOL);

/**
 * The person at another terminal: finds the running run and answers its held question, trying again
 * while the question is not held yet (exit 4, nothing changed) until `deadline` (epoch ms).
 */
async function answerWhileHeld(box: Sandbox, deadline: number): Promise<CliResult> {
  for (;;) {
    const listed = await box.cli(['runs', '--status', 'running'], { trace: false });
    const runId = /"runId":\s*"([^"]+)"/.exec(listed.stdout)?.[1];
    if (runId) {
      const answered = await box.answer(runId, ANSWER);
      if (answered.code !== 4 || Date.now() > deadline) return answered;
    } else if (Date.now() > deadline) {
      throw new Error(`no running run to answer:\n${listed.stdout}${listed.stderr}`);
    }
  }
}

describe('a server question held open for a person', { timeout: 180_000 }, () => {
  it('gives an answer from a second process within the hold to the server on its first request', async () => {
    const box = sandbox();
    const { flow, turns } = setUp(box, 90, 1);
    const running = box.run(flow, turns, 'ask me');
    const answered = await answerWhileHeld(box, Date.now() + 80_000);
    expect(answered.code, answered.stderr).toBe(0);
    // The answering process tells what it answered: the question it took, gone once the driver took it.
    expect(answered.summary?.status).toMatch(/running|completed/);

    const done = await running;
    expect(done.code, done.stderr).toBe(0);
    expect(done.summary?.status).toBe('completed');
    const events = box.allEvents().filter((e) => e.runId === done.summary?.runId);
    // Never suspended, never resumed: one call, which got the answer on the server's first request.
    expect(events.filter((e) => e.type === 'run.suspended' || e.type === 'run.resumed')).toEqual([]);
    const calls = invoked({ ...done, events });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ outcome: 'SUCCESS', executed: true });
    const text = JSON.stringify(calls[0]?.result);
    expect(text).toContain('Name: Ada Lovelace');
    expect(text).toContain('Favorite Integer: 42'); // the requested schema's default, filled in
    const traced = events.filter((e) => e.type === 'mcp.answered');
    expect(traced).toHaveLength(1);
    expect(traced[0]).toMatchObject({ server: 'everything', tool: TOOL, action: 'accept', nodeId: 'main' });

    // Once taken, the question is no longer held: a late answer is refused, nothing changed (exit 4).
    const late = await box.answer(done.summary!.runId, ANSWER);
    expect(late.code).toBe(4);
  });

  it('suspends after the hold, and the call is sent again with the answer', async () => {
    const box = sandbox();
    const { flow, turns } = setUp(box, 1, 2);
    const first = await box.run(flow, turns, 'ask me');
    expect(first.code, first.stderr).toBe(3);
    expect(first.summary?.suspension?.kind).toBe('FOLLOW_UP');
    expect(invoked(first)).toEqual([]);
    expect(first.events.filter((e) => e.type === 'mcp.answered')).toEqual([]);

    const done = await box.answer(first.summary!.runId, ANSWER);
    expect(done.code, done.stderr).toBe(0);
    expect(done.summary?.status).toBe('completed');
    const [cancelled, sent] = invoked(done);
    expect(cancelled).toMatchObject({ outcome: 'SUCCESS', executed: false });
    expect(sent).toMatchObject({ outcome: 'SUCCESS', executed: true });
    expect(JSON.stringify(sent?.result)).toContain('Name: Ada Lovelace');
  });
});
