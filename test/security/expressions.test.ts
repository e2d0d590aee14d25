import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate, ExpressionError } from '../../src/tools/expressions.js';
import { tempDir } from '../server/helpers.js';
import { SEC, startTarget, type Target } from './helpers.js';

/**
 * A tenant's admin froze the server with an inline flow whose edge `when` recursed forever
 * (`$f := function($x){ $f($x + 1) }`): JSONata ran without bound, /healthz stopped answering and
 * SIGTERM was ignored. Every flow expression now runs within a time, depth and sequence budget.
 */

const BOMBS = [
  '($f := function($x){ $f($x + 1) }; $f(0)) > 0',
  '($f := function($x){ $x > 1e9 ? $x : $f($x + 1) }; $f(0)) > 0',
  '$count([1..10000000]) > 0',
  '$count([1..900000].([1..900000])) > 0',
];

let target: Target;

beforeAll(async () => {
  const scripts = await tempDir({
    'finish.yaml': 'turns:\n  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }\n',
  });
  target = await startTarget({ server: { scriptedModels: scripts } });
});
afterAll(async () => {
  await target.stop();
});

describe('flow expressions are bounded', () => {
  it('fail an endless or huge expression with an expression error, quickly', async () => {
    for (const bomb of BOMBS) {
      const started = Date.now();
      const error = await evaluate(bomb, {}).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, bomb).toBeInstanceOf(ExpressionError);
      expect(Date.now() - started, bomb).toBeLessThan(5_000);
    }
    expect(await evaluate('$count([1..1000])', {})).toBe(1000);
  });

  it("an edge's endless `when` fails the run (EDGE_ERROR) while /healthz keeps answering", async () => {
    const flow = {
      id: 'bomb',
      locale: 'en',
      model: 'scripted:finish.yaml',
      nodes: [{ id: 'a' }, { id: 'b' }],
      edges: [{ from: 'a', to: 'b', when: BOMBS[0] }],
    };
    const response = await target.call('POST', '/v1/runs', {
      token: SEC.betaAdmin,
      json: { flow, input: 'x' },
    });
    expect(response.status).toBe(201);
    const { runId } = (await response.json()) as { runId: string };
    let slowest = 0;
    let ended = false;
    const watching = (async () => {
      for await (const event of target.runtime.events(runId)) void event;
      ended = true;
    })();
    while (!ended) {
      const asked = Date.now();
      expect((await fetch(`${target.url}/healthz`)).status).toBe(200);
      slowest = Math.max(slowest, Date.now() - asked);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await watching;
    expect(slowest).toBeLessThan(1_000);
    const run = (await (await target.call('GET', `/v1/runs/${runId}`, { token: SEC.betaAdmin })).json()) as {
      status: string;
      reason: string;
      message: string;
    };
    expect(run).toMatchObject({ status: 'failed', reason: 'EDGE_ERROR' });
    expect(run.message).toMatch(/JSONata expression/);
  });
});
