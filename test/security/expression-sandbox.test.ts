import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, NODE, REPO_ROOT } from '../acceptance/build.js';
import { evaluate, ExpressionError } from '../../src/tools/expressions.js';
import { tempDir } from '../server/helpers.js';
import { SEC, startTarget, type Target } from './helpers.js';

/**
 * The second re-attack got past the in-process JSONata budget with single built-in steps: `$distinct`
 * over 300,000 items (quadratic: 15 s of a frozen server), `$pad` to 10 million characters (+480 MB),
 * a regex built at run time with `$eval` (ReDoS), and 300 edges each just under the budget (20 s).
 * Expressions of flows sent over HTTP now run in a worker with a memory ceiling and a 1 s deadline,
 * without `$eval`, and the `when`s of one node's edges share a 1 s budget.
 */

const SLOW_WHENS = [
  '($f := function($x){ $f($x + 1) }; $f(0)) > 0',
  '$count($distinct([1..300000])) < 0',
  '$length($pad("", 10000000, "xy")) < 0',
  '$contains($pad("", 30, "a") & "!", $eval("/^(a+)+$/" & "i"))',
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

/** Starts an inline flow (node a, then b along `edges`) and watches /healthz until the run ends. */
async function runWatching(edges: unknown[]): Promise<{ run: Record<string, unknown>; slowest: number }> {
  const flow = {
    id: 'sandboxed',
    locale: 'en',
    model: 'scripted:finish.yaml',
    nodes: [{ id: 'a' }, { id: 'b' }],
    edges,
  };
  const response = await target.call('POST', '/v1/runs', {
    token: SEC.betaAdmin,
    json: { flow, input: 'x' },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  const { runId } = (await response.json()) as { runId: string };
  let ended = false;
  const watching = (async () => {
    for await (const event of target.runtime.events(runId)) void event;
    ended = true;
  })();
  let slowest = 0;
  while (!ended) {
    const asked = Date.now();
    expect((await fetch(`${target.url}/healthz`)).status).toBe(200);
    slowest = Math.max(slowest, Date.now() - asked);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await watching;
  const run = (await (
    await target.call('GET', `/v1/runs/${runId}`, { token: SEC.betaAdmin })
  ).json()) as Record<string, unknown>;
  return { run, slowest };
}

describe('expressions of flows sent over HTTP run in the sandbox', () => {
  it.each(SLOW_WHENS)('%s fails the run (EDGE_ERROR) while /healthz keeps answering', async (when) => {
    const before = process.memoryUsage().rss;
    const { run, slowest } = await runWatching([{ from: 'a', to: 'b', when }]);
    expect(run).toMatchObject({ status: 'failed', reason: 'EDGE_ERROR' });
    expect(slowest).toBeLessThan(1_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });

  it('many edges just under the budget share one budget for the node', async () => {
    // Each edge well under the 250 ms of one expression even on a loaded machine; together over 1 s.
    const when = '$sum([1..10000].($ * 2)) < 0';
    const { run, slowest } = await runWatching(
      Array.from({ length: 1500 }, () => ({ from: 'a', to: 'b', when })),
    );
    expect(run).toMatchObject({ status: 'failed', reason: 'EDGE_ERROR' });
    expect(String(run.message)).toMatch(/took longer than 1000 ms together/);
    expect(slowest).toBeLessThan(1_000);
  });

  it('an ordinary expression gives the same value in the sandbox as in process', async () => {
    const input = {
      data: [
        { id: 1, name: 'a' },
        { id: 2, name: 'b' },
      ],
    };
    for (const expression of ['data[id = 2].name', '$count(data)', 'data.{"n": name}', 'nothing'])
      expect(await evaluate(expression, input, { sandboxed: true })).toEqual(
        await evaluate(expression, input),
      );
    await expect(evaluate('$eval("1 + 1")', {}, { sandboxed: true })).rejects.toBeInstanceOf(ExpressionError);
    expect(await evaluate('$eval("1 + 1")', {})).toBe(2);
  });

  it('a flow sent over HTTP is stored with sandboxExpressions: true and may not turn it off', async () => {
    const flow = {
      id: 'off',
      locale: 'en',
      model: 'openai:gpt-4.1',
      nodes: [{ id: 'a' }],
      sandboxExpressions: false,
    };
    const refused = await target.call('POST', '/v1/flows', { token: SEC.admin, json: flow });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/sandboxExpressions/);
  });
});

describe('the sandbox worker', () => {
  beforeAll(() => ensureBuilt(), 300_000);

  it('never keeps a process alive once its evaluations are done', async () => {
    const module = pathToFileURL(join(REPO_ROOT, 'dist/src/tools/expressions.js')).href;
    const script = `const { evaluate } = await import(${JSON.stringify(module)});
      console.log(await evaluate('a', { a: 7 }, { sandboxed: true }));`;
    const child = spawn(NODE, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, 20_000);
      child.on('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect(out.trim()).toBe('7');
    expect(code).toBe(0);
  }, 30_000);
});

describe('the sandbox against a second round of attacks', () => {
  it('refuses an expression longer than 8192 characters before compiling it', async () => {
    const when = `(${'$x := 1;'.repeat(20_000)} $x) = 2`;
    const flow = { id: 'long', locale: 'en', model: 'openai:gpt-4.1', nodes: [{ id: 'a' }, { id: 'b' }] };
    const started = Date.now();
    const response = await target.call('POST', '/v1/flows', {
      token: SEC.betaAdmin,
      json: { ...flow, edges: [{ from: 'a', to: 'b', when }] },
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(
      /edges\[0\]\.when: expected a JSONata expression of at most 8192 characters/,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('refuses a value larger than 1 MiB of JSON', async () => {
    const when = '$length("xy" & "xy") < 0';
    const doubling = `($s := "xxxxxxxx"; ${'$s := $s & $s; '.repeat(18)} $s) = ""`;
    expect(await evaluate(when, {}, { sandboxed: true })).toBe(false);
    await expect(evaluate(`${doubling.replace(' = ""', '')}`, {}, { sandboxed: true })).rejects.toThrow(
      /larger than 1048576 characters/,
    );
  });

  it("serves tenants in turn: a tenant's queue delays another's by the running evaluation and one more", async () => {
    const { ExpressionSandbox } = await import('../../src/tools/expression-sandbox.js');
    const sandbox = new ExpressionSandbox({ timeout: 5_000 });
    const done: string[] = [];
    const slow = '$count($distinct([1..8000]))';
    const jobs = [
      ...[1, 2, 3, 4].map((i) => sandbox.evaluate(slow, {}, 'beta').then(() => done.push(`beta-${i}`))),
      sandbox.evaluate('1 + 1', {}, 'acme').then(() => done.push('acme')),
    ];
    await Promise.all(jobs);
    await sandbox.close();
    // beta-1 was running; beta-2 had its turn before acme's first; then acme, before beta-3 and beta-4.
    expect(done.indexOf('acme')).toBe(2);
  });
});
