import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EDGE_TARGETS, MAX_RUN_BRANCHES } from '../../src/domain/flow.js';
import { ensureBuilt } from '../cli/helpers/cli.js';
import { SEC } from './helpers.js';
import { startServe, whileOtherTenantWaits, type ServeProcess } from './serve-process.js';

/**
 * Issue 39, finding 2 against a real `serve` with two tenants: a fan-out wider than a flow may declare
 * is refused at upload with the limit named, and the widest one a flow may declare runs to its end
 * while the other tenant's requests are answered within 1 s.
 */

let serve: ServeProcess;

beforeAll(async () => {
  ensureBuilt();
  serve = await startServe();
}, 240_000);
afterAll(async () => {
  await serve.stop();
});

/** start → [h0 … h(k-1)], each head → its leaves, every leaf → join; all model nodes. */
function wideFlow(id: string, leavesPerHead: number[]): { flow: Record<string, unknown>; nodes: string[] } {
  const heads = leavesPerHead.map((_, k) => `h${k}`);
  const leaves = heads.map((h, k) => Array.from({ length: leavesPerHead[k] ?? 0 }, (_, i) => `${h}_${i}`));
  const nodes = ['start', ...heads, ...leaves.flat(), 'join'];
  const flow = {
    id,
    version: 1,
    locale: 'en',
    model: 'scripted:fan.yaml',
    nodes: nodes.map((n) => ({ id: n })),
    edges: [
      { from: 'start', to: heads },
      ...heads.map((h, k) => ({ from: h, to: leaves[k] })),
      ...leaves.flat().map((l) => ({ from: l, to: 'join' })),
    ],
  };
  return { flow, nodes };
}

async function uploadStatus(flow: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const response = await serve.call('POST', '/v1/flows', SEC.acmeAdmin, flow);
  return { status: response.status, text: await response.text() };
}

describe('wide fan-out (issue 39, finding 2)', () => {
  it('refuses an edge to more than 64 nodes and lists adding up to more than 256, naming the limit', async () => {
    expect(MAX_EDGE_TARGETS).toBe(64);
    expect(MAX_RUN_BRANCHES).toBe(256);
    const oneEdge = await uploadStatus(wideFlow('one-edge', [65]).flow);
    expect(oneEdge.status).toBe(400);
    expect(oneEdge.text).toContain('an edge starts at most 64');
    expect(oneEdge.text).toContain('starts 65 nodes');
    // 5 heads + 4 × 63 + 1 leaves = 258 branches declared.
    const many = await uploadStatus(wideFlow('many-edges', [63, 63, 63, 63, 1]).flow);
    expect(many.status).toBe(400);
    expect(many.text).toContain('a run holds at most 256');
  });

  it('runs the widest fan-out a flow may declare while the other tenant is answered within 1 s', async () => {
    // 4 heads + 64 + 64 + 64 + 60 leaves = 256 branches declared, 252 of them at once.
    const { flow, nodes } = wideFlow('widest', [64, 64, 64, 60]);
    const turns = nodes.map(
      (node) => `  - { node: ${node}, calls: [{ tool: builtin_node_finish, args: { summary: done } }] }`,
    );
    await writeFile(join(serve.dir, 'fan.yaml'), `turns:\n${turns.join('\n')}\n`);
    const upload = await uploadStatus(flow);
    expect(upload.status, upload.text).toBeLessThan(300);
    // The run starts (its scripted model file parsed) before the measured stretch: the fan-out itself.
    const started = await serve.call('POST', '/v1/runs', SEC.acmeOperator, {
      flowId: 'widest',
      input: { text: 'go' },
    });
    expect(started.status, await started.clone().text()).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    let final: { status?: string; outputs?: Record<string, unknown> } = {};
    const answer = await whileOtherTenantWaits(serve, SEC.betaOperator, async () => {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const run = await serve.call('GET', `/v1/runs/${runId}`, SEC.acmeOperator);
        final = (await run.clone().json()) as typeof final;
        if (final.status !== 'running' || Date.now() > deadline) return run;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
    expect(answer.status, answer.text).toBe(200);
    expect(final.status).toBe('completed');
    expect(Object.keys(final.outputs ?? {})).toHaveLength(nodes.length);
    expect(answer.longestWaitMs).toBeLessThan(1_000);
  }, 180_000);
});
