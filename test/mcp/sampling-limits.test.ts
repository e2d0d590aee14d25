import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { MAX_SAMPLING_REQUESTS, MAX_SAMPLING_TOKENS } from '../../src/mcp/sampling.js';
import { createRuntime, type Runtime } from '../../src/index.js';
import type { ScriptedTurn } from '../../src/model/scripted.js';
import { REPO_ROOT } from '../acceptance/build.js';
import { eventsOf, ofType, recordingModel } from '../runtime/helpers.js';

/**
 * Issue 39, finding 6: an MCP server with `sampling: true` (a real stdio server that asks the model
 * `count` times in one tool call) cannot raise the output limit past MAX_SAMPLING_TOKENS, make more
 * than MAX_SAMPLING_REQUESTS requests in one call, or spend past the run's token budget: refused
 * requests reach the server as MCP errors and never the model.
 */

const GREEDY = join(REPO_ROOT, 'test/mcp/fixtures/greedy-sampling-server.mjs');

const runtimes: Runtime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

async function greedyFlow(limits: Record<string, number> = {}) {
  return loadFlow({
    id: 'greedy',
    version: 1,
    locale: 'en',
    limits,
    mcpServers: { greedy: { command: process.execPath, args: [GREEDY], sampling: true } },
    tools: { ask_many: { write: false } },
    nodes: [{ id: 'main', instructions: 'Let the server ask.', tools: ['ask_many'] }],
  } as never);
}

const answer = (n: number, usage?: number): ScriptedTurn => ({
  text: `answer ${n}`,
  ...(usage !== undefined ? { usage: { inputTokens: 0, outputTokens: usage } } : {}),
});
const FINISH: ScriptedTurn = { calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] };

/** What the server's tool got for each of its requests. */
function serverAnswers(
  events: readonly { type: string }[],
): { ok: boolean; text?: string; message?: string }[] {
  const invoked = ofType(events as never, 'tool.invoked').find(
    (e) => (e as { tool?: string }).tool === 'ask_many',
  );
  const text = JSON.stringify((invoked as { result?: unknown } | undefined)?.result ?? null);
  const inner = /\[\{.*\}\]/.exec(JSON.parse(text) === null ? '' : text.replace(/\\"/g, '"'))?.[0];
  return inner ? (JSON.parse(inner) as { ok: boolean; text?: string; message?: string }[]) : [];
}

describe('sampling limits (issue 39, finding 6)', { timeout: 60_000 }, () => {
  it('lowers maxTokens to the cap and refuses requests past the per-call cap with an MCP error', async () => {
    expect(MAX_SAMPLING_TOKENS).toBe(4_096);
    expect(MAX_SAMPLING_REQUESTS).toBe(8);
    const count = MAX_SAMPLING_REQUESTS + 3;
    const model = recordingModel(
      { calls: [{ tool: 'ask_many', args: { count, maxTokens: 1_000_000 } }] },
      ...Array.from({ length: MAX_SAMPLING_REQUESTS }, (_, i) => answer(i + 1)),
      FINISH,
    );
    const runtime = createRuntime({ store: 'memory', logger: false });
    runtimes.push(runtime);
    const summary = await runtime.start(await greedyFlow(), { input: { text: 'go' }, model });
    expect(summary.status).toBe('completed');
    // The model saw the node's two calls and exactly MAX_SAMPLING_REQUESTS sampling requests.
    expect(model.requests).toHaveLength(MAX_SAMPLING_REQUESTS + 2);
    const sampling = model.requests.filter((r) => r.tools.length === 0);
    expect(sampling).toHaveLength(MAX_SAMPLING_REQUESTS);
    for (const r of sampling) expect(r.maxOutputTokens).toBe(MAX_SAMPLING_TOKENS);
    const events = await eventsOf(runtime, summary.runId);
    for (const e of ofType(events, 'sampling.requested'))
      expect((e as unknown as { maxTokens: number }).maxTokens).toBe(MAX_SAMPLING_TOKENS);
    const answers = serverAnswers(events);
    expect(answers).toHaveLength(count);
    expect(answers.slice(0, MAX_SAMPLING_REQUESTS).every((a) => a.ok)).toBe(true);
    for (const refused of answers.slice(MAX_SAMPLING_REQUESTS)) {
      expect(refused.ok).toBe(false);
      expect(refused.message).toContain(`at most ${MAX_SAMPLING_REQUESTS} sampling requests`);
    }
    const completed = ofType(events, 'sampling.completed') as unknown as { ok: boolean }[];
    expect(completed.filter((c) => !c.ok)).toHaveLength(count - MAX_SAMPLING_REQUESTS);
  });

  it('checks the run token budget before each request: once reached, the server gets an MCP error', async () => {
    const model = recordingModel(
      { calls: [{ tool: 'ask_many', args: { count: 4, maxTokens: 50 } }] },
      answer(1, 80),
      answer(2, 80),
      answer(3, 80),
      FINISH,
    );
    const runtime = createRuntime({ store: 'memory', logger: false });
    runtimes.push(runtime);
    const summary = await runtime.start(await greedyFlow({ maxTokens: 100 }), {
      input: { text: 'go' },
      model,
    });
    // 80 tokens after the first answer (under 100), 160 after the second: the third and fourth are refused.
    const sampling = model.requests.filter((r) => r.tools.length === 0);
    expect(sampling).toHaveLength(2);
    const events = await eventsOf(runtime, summary.runId);
    const answers = serverAnswers(events);
    expect(answers.map((a) => a.ok)).toEqual([true, true, false, false]);
    expect(answers[2]?.message).toMatch(/sampling refused: .*100/);
    // The node's own next model call meets the same budget.
    expect(summary.status).toBe('failed');
    expect(summary.reason).toBe('BUDGET_EXCEEDED');
  });
});
