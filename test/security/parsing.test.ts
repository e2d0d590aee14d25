import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFlowText } from '../../src/flow/load.js';
import { isFlowError } from '../../src/flow/problems.js';
import { precheckYaml } from '../../src/fs/yaml-limits.js';
import { REPO_ROOT, ensureBuilt, runCli } from '../cli/helpers/cli.js';
import { SEC, errorOf, startTarget, type Target } from './helpers.js';

/**
 * Hole 4: a YAML alias bomb was an internal error (500 / exit 1) and a deeply nested upload blocked
 * the event loop for seconds. Now aliases, depth and size are bounded and are flow problems.
 */

const BOMB = `id: bomb
a: &a ["x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: [*e,*e,*e,*e,*e,*e,*e,*e,*e]
nodes: [{ id: a }]
`;
const DEEP_FLOW = `id: deep\nnodes: [{ id: a }]\nx: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`;
const DEEP_BLOCK = `id: deep\nnodes: [{ id: a }]\nx: ${'- '.repeat(200_000)}1\n`;

let t: Target;
beforeAll(async () => {
  ensureBuilt();
  t = await startTarget();
}, 300_000);
afterAll(async () => {
  await t.stop();
});

function upload(body: string): Promise<Response> {
  return t.call('POST', '/v1/flows', {
    token: SEC.admin,
    body,
    headers: { 'content-type': 'application/yaml' },
  });
}

async function flowProblems(text: string): Promise<string> {
  try {
    await loadFlowText(text);
  } catch (error) {
    if (isFlowError(error)) return error.message;
    throw error;
  }
  throw new Error('the flow loaded');
}

describe('parse limits', () => {
  it('answers an alias bomb with 400 FLOW_INVALID', async () => {
    const error = await errorOf(await upload(BOMB));
    expect(error).toMatchObject({ status: 400, code: 'FLOW_INVALID' });
    expect(error.problems?.join('\n')).toMatch(/aliases/);
  });

  it('refuses deep nesting as a flow problem without parsing it', async () => {
    for (const text of [DEEP_FLOW, DEEP_BLOCK]) {
      expect(await flowProblems(text)).toMatch(/nests deeper than 100 levels/);
      const error = await errorOf(await upload(text));
      expect(error).toMatchObject({ status: 400, code: 'FLOW_INVALID' });
    }
    const hidden = `id: d\nnodes: [{ id: a }]\nx: [don't, ${'['.repeat(50_000)}${']'.repeat(50_000)}]\n`;
    expect(await flowProblems(hidden)).toMatch(/nests deeper than 100 levels/);
    expect(
      await flowProblems(`id: d\nnodes: [{ id: a }]\nx: ${'['.repeat(120)}${']'.repeat(120)}\n`),
    ).toMatch(/nests deeper than 100 levels/);
  });

  it('keeps sane documents (the examples, JSON schemas a few levels deep) under the estimate', () => {
    const nested = `id: n\nnodes: [{ id: a }]\ninput:\n${Array.from({ length: 30 }, (_, i) => `${'  '.repeat(i + 1)}p${i}:`).join('\n')} 1\n`;
    expect(precheckYaml(nested)).toBeNull();
    expect(precheckYaml(JSON.stringify({ a: [[[[{ b: [[1]] }]]]] }))).toBeNull();
    // JSON with spaces after colons (as Python writes it), many keys on one line.
    const wide = `{${Array.from({ length: 2000 }, (_, i) => `"k${i}": [1, 2]`).join(', ')}}`;
    expect(precheckYaml(wide)).toBeNull();
  });

  it('keeps answering /healthz while a megabyte of YAML is parsed', async () => {
    const nodes = Array.from(
      { length: 14_000 },
      (_, i) => `  - id: n${i}\n    instructions: "step ${i} of a long flow"\n`,
    ).join('');
    const big = `id: big\nnodes:\n${nodes}`.slice(0, 1000 * 1024);
    const uploaded = upload(big);
    const started = Date.now();
    let slowest = 0;
    let done = false;
    void uploaded.finally(() => {
      done = true;
    });
    while (!done && Date.now() - started < 20_000) {
      const before = Date.now();
      expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
      slowest = Math.max(slowest, Date.now() - before);
    }
    expect((await uploaded).status).toBeLessThan(500);
    expect(slowest).toBeLessThan(1000);
  });

  it('makes `validate` exit 2 with the problem for an alias bomb and a deep document', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sec-parse-'));
    for (const [name, text] of [
      ['bomb.yaml', BOMB],
      ['deep.yaml', DEEP_FLOW],
    ] as const) {
      writeFileSync(join(dir, name), text);
      const r = await runCli(['validate', join(dir, name), '--offline'], { cwd: REPO_ROOT });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).not.toMatch(/internal error/);
      expect(r.stderr).toMatch(/aliases|nests deeper/);
    }
  });
});
