import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../acceptance/scenario.js';
import { startInputRequiredServer, type InputRequiredServer } from '../helpers/input-required-server.js';

/**
 * `input_required` results (2026-07-28) as durable questions (docs/mcp.md, "Elicitation"): against a
 * real HTTP server of that revision and the CLI as subprocesses, each round's question suspends the
 * run, `answer` in another process records the answer, and the call is retried with the answers and
 * the round's request state as the server sent it — never sent afresh.
 */

const sandbox = useSandbox();
let server: InputRequiredServer;

beforeEach(async () => {
  server = await startInputRequiredServer();
});
afterEach(async () => {
  await server.close();
});

function setUp(dir: string, url: string): { flow: string; turns: string } {
  const flow = join(dir, 'order.flow.json');
  const turns = join(dir, 'order.turns.json');
  writeFileSync(
    flow,
    JSON.stringify({
      id: 'order',
      version: 1,
      locale: 'en',
      mcpServers: { shop: { url } },
      tools: { confirm_order: { write: false } },
      nodes: [{ id: 'main', instructions: 'Order.', tools: ['confirm_order'] }],
    }),
  );
  const call = { node: 'main', calls: [{ tool: 'confirm_order', args: {} }] };
  writeFileSync(
    turns,
    JSON.stringify({
      turns: [
        call,
        call,
        call,
        { node: 'main', calls: [{ tool: 'builtin_node_finish', args: { summary: 'ok' } }] },
      ],
    }),
  );
  return { flow, turns };
}

describe('MCP input_required through the CLI', { timeout: 120_000 }, () => {
  it('suspends for each round and retries it with the answers and its request state', async () => {
    const box = sandbox();
    const { flow, turns } = setUp(box.dir, server.url);

    const first = await box.run(flow, turns, 'order');
    expect(first.code, first.stderr).toBe(3);
    expect(first.summary?.suspension?.pending).toMatchObject({
      question: 'How many units?',
      elicitation: { server: 'shop', tool: 'confirm_order', round: { requestState: 'round-1' } },
    });

    // A form answer that does not fit the server's schema is refused, nothing sent.
    const bad = await box.answer(first.summary!.runId, '{"quantity": 0}');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/does not match the requested schema/);
    expect(server.calls).toHaveLength(1);

    const second = await box.answer(first.summary!.runId, '{"quantity": 3}');
    expect(second.code, second.stderr).toBe(3);
    expect(second.summary?.suspension?.pending).toMatchObject({
      question: 'Place the order?',
      elicitation: { round: { requestState: 'round-2:3' } },
    });

    const done = await box.answer(first.summary!.runId, '{}');
    expect(done.code, done.stderr).toBe(0);
    expect(done.summary?.status).toBe('completed');
    const called = done.events.filter((e) => e.type === 'tool.invoked' && e.tool === 'confirm_order').at(-1);
    expect(called).toMatchObject({ outcome: 'SUCCESS', executed: true });
    expect(JSON.stringify(called?.result)).toContain('order placed: 3 units');

    // Three calls in three processes: the first, then each round's retry carrying its state.
    expect(server.calls.map((c) => c.params.requestState)).toEqual([undefined, 'round-1', 'round-2:3']);
    expect(server.calls[0]?.params.inputResponses).toBeUndefined();
    expect(server.calls[1]?.params.inputResponses).toEqual({
      quantity: { action: 'accept', content: { quantity: 3 } },
    });
    // The confirmation's default filled in.
    expect(server.calls[2]?.params.inputResponses).toEqual({
      confirm: { action: 'accept', content: { confirmed: true } },
    });
    expect(new Set(server.calls.map((c) => c.id)).size).toBe(3);
  });

  it('a declined question goes back to the server in the retry', async () => {
    const box = sandbox();
    const { flow, turns } = setUp(box.dir, server.url);
    const first = await box.run(flow, turns, 'order');
    expect(first.code, first.stderr).toBe(3);
    const declined = await box.cli(['answer', first.summary!.runId, '--decline']);
    expect(declined.code, declined.stderr).toBe(3);
    expect(server.calls[1]?.params).toMatchObject({
      requestState: 'round-1',
      inputResponses: { quantity: { action: 'decline' } },
    });
  });
});
