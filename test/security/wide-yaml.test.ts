import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precheckYaml, YAML_LIMITS } from '../../src/fs/yaml-limits.js';
import { parseOffThread, ParseBusyError } from '../../src/fs/yaml-worker.js';
import { SEC, startTarget, type Target } from './helpers.js';

/**
 * Wide documents: a 950 KB upload of 40,000 keys cost ~10 s of CPU in a parse worker, and parallel
 * ones added hundreds of MB. Now a linear pre-scan refuses documents holding more values than the
 * limit before any parser runs, at most two parse workers run (with heap limits) and four wait, and
 * beyond that the API answers 503 BUSY with Retry-After.
 */

/** A flow-shaped YAML document with `keys` extra keys, each with a value of `pad` characters. */
function wide(keys: number, pad: number): string {
  const lines = Array.from({ length: keys }, (_, i) => `  k${i}: ${'v'.repeat(pad)}`);
  return `id: wide\nlocale: en\nnodes: [{ id: a }]\nextra:\n${lines.join('\n')}\n`;
}

let t: Target;
beforeAll(async () => {
  t = await startTarget();
});
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

describe('wide YAML documents', () => {
  it('refuses 40,000 keys before parsing, at once, naming the limit', async () => {
    const text = wide(40_000, 15);
    expect(text.length).toBeGreaterThan(900_000);
    expect(precheckYaml(text)?.message).toBe(`the document holds more than ${YAML_LIMITS.maxValues} values`);
    const json = JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])));
    expect(precheckYaml(json)?.message).toMatch(/holds more than/);
    const started = performance.now();
    const response = await upload(text);
    const elapsed = performance.now() - started;
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; problems: string[] } };
    expect(error.code).toBe('FLOW_INVALID');
    expect(error.problems.join('\n')).toMatch(/holds more than 10000 values/);
    // Parsing it took seconds; the scan takes milliseconds (generous bound for a loaded machine).
    expect(elapsed).toBeLessThan(2_000);
  });

  it('does not refuse a document within the limit (JSON or YAML)', () => {
    expect(precheckYaml(wide(4_000, 20))).toBeNull();
    const json = JSON.stringify({ id: 'x', a: Array.from({ length: 9_000 }, (_, i) => i) }, null, 2);
    expect(precheckYaml(json)).toBeNull();
    const pretty = JSON.stringify(
      Object.fromEntries(Array.from({ length: 4_900 }, (_, i) => [`k${i}`, i])),
      null,
      2,
    );
    expect(precheckYaml(pretty)).toBeNull();
  });

  it('runs two parses at once, queues four, and refuses the next as busy', async () => {
    const text = wide(2_000, 60);
    const parses = Array.from({ length: 6 }, () => parseOffThread(text));
    await expect(parseOffThread(text)).rejects.toBeInstanceOf(ParseBusyError);
    const results = await Promise.all(parses);
    // Each was parsed (2,000 keys are within the values limit) without a problem.
    for (const result of results) expect(result.syntax).toEqual([]);
    // The slots are free again.
    expect((await parseOffThread(text)).syntax).toEqual([]);
  }, 60_000);

  it('answers 503 BUSY with Retry-After to uploads beyond the queue, never 500, and keeps answering', async () => {
    const text = wide(2_000, 60);
    const answers = await Promise.all(Array.from({ length: 10 }, () => upload(text)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    // Parsed ones are refused for their unknown key `extra` (a flow problem); none is a 500.
    expect(
      statuses.every((s) => s === 400 || s === 503),
      statuses.join(),
    ).toBe(true);
    const busy = answers.find((a) => a.status === 503) as Response;
    expect(busy.headers.get('retry-after')).toBe('2');
    expect(((await busy.json()) as { error: { code: string } }).error.code).toBe('BUSY');
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  }, 60_000);
});

describe('the parse worker (a file of its own, started by URL)', () => {
  it('gives back the data, syntax problems with positions, and refuses alias bombs', async () => {
    expect(await parseOffThread('a: 1\nb: [x, y]\n')).toEqual({ syntax: [], data: { a: 1, b: ['x', 'y'] } });
    const broken = await parseOffThread('a: [1');
    expect(broken.data).toBeUndefined();
    expect(broken.syntax[0]).toMatchObject({ position: { line: 1, column: 6 } });
    const bomb = await parseOffThread('a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n', {
      ...YAML_LIMITS,
      maxAliasCount: 2,
    });
    expect(bomb.syntax[0]?.message).toContain('expands aliases beyond 2 nodes');
  });
});
