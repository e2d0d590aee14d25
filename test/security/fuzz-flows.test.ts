import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFlowText } from '../../src/flow/load.js';
import { isFlowError } from '../../src/flow/problems.js';
import { validateFlow } from '../../src/flow/validate.js';
import { REPO_ROOT, ensureBuilt, runCli } from '../cli/helpers/cli.js';
import { rng, type Rng } from './random.js';

/**
 * A seeded fuzz of flow files: at least 500 mutations of the example flows (text edits, YAML
 * oddities, structural changes). Each must validate to "valid" or to problems with messages (the
 * CLI's exit 0 or 2), never an exception (the CLI's "internal error", exit 1); a sample goes through
 * the real `validate` command.
 */

const SEED = Number(process.env.SECURITY_FUZZ_SEED ?? 1313);
const MUTATIONS = 520;
const CLI_SAMPLE = 4;

const SNIPPETS = [
  'x: &a [1, 2]\ny: *a',
  'z: *undefined_anchor',
  'a: &a [x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c]',
  '<<: { id: merged }',
  'id: !!binary aGVsbG8=',
  'id: !!js/function "function(){}"',
  '\tid: tab',
  '---\nid: second',
  '...',
  '{',
  ']',
  '? complex key\n: value',
  `deep: ${'['.repeat(300)}`,
  `deep: ${'- '.repeat(400)}x`,
  `long: ${'x'.repeat(70_000)}`,
  'model: scripted:/dev/zero',
  'model: scripted:../../../../etc/passwd',
  'nodes: null',
  'nodes: [{ id: a, delegates: [/etc/passwd, /dev/zero] }]',
  'mcpServers: { s: { command: id } }',
  'limits: { maxRounds: -1, maxStalls: 1e309 }',
  'input: { type: object, properties: { a: { $ref: "#/definitions/a" } } }',
  'edges: [{ from: nowhere, to: nothing, when: "((((" }]',
  'tools: { x: { params: { a: { source: evidence, from: [], path: "a..b" } } } }',
  '"\\u0000": x',
  '__proto__: { polluted: true }',
  'constructor: { prototype: { x: 1 } }',
  'id: 😀',
];

const VALUES: unknown[] = [
  null,
  0,
  -1,
  Infinity,
  '',
  'x',
  [],
  {},
  true,
  'scripted:/dev/zero',
  '/etc/passwd',
  [[[[]]]],
  { a: { b: {} } },
];

let root: string;
let sources: { name: string; text: string }[] = [];

beforeAll(() => {
  ensureBuilt();
  root = mkdtempSync(join(tmpdir(), 'sec-flow-fuzz-'));
  cpSync(join(REPO_ROOT, 'examples'), root, { recursive: true });
  const candidates = [
    'site-builder/flow.yaml',
    'crash/flow.yaml',
    'flows/delegating.yaml',
    'flows/site-report.yaml',
    'flows/invalid.yaml',
    ...readdirSync(join(root, 'acceptance'))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => `acceptance/${f}`),
  ];
  sources = candidates.map((name) => ({ name, text: readFileSync(join(root, name), 'utf8') }));
}, 300_000);

function lines(text: string): string[] {
  return text.split('\n');
}

function mutateText(text: string, r: Rng): string {
  const ls = lines(text);
  const at = r.int(0, Math.max(0, ls.length - 1));
  switch (r.int(0, 7)) {
    case 0:
      ls.splice(at, 1);
      break;
    case 1:
      ls.splice(at, 0, ls[r.int(0, ls.length - 1)] ?? '');
      break;
    case 2:
      ls.splice(at, 0, r.pick(SNIPPETS));
      break;
    case 3:
      ls[at] = `${' '.repeat(r.int(0, 7))}${(ls[at] ?? '').trimStart()}`;
      break;
    case 4:
      return text.slice(0, r.int(0, text.length));
    case 5: {
      const i = r.int(0, Math.max(0, text.length - 1));
      return (
        text.slice(0, i) +
        r.pick(['{', '[', ':', '&', '*', '!', '|', '>', '"', "'", '#', '\t', '%', '@', '`']) +
        text.slice(i + 1)
      );
    }
    case 6:
      ls.push(r.pick(SNIPPETS));
      break;
    default:
      ls[at] = (ls[at] ?? '').replace(/\b\w+\b/, () => String(r.pick(VALUES)));
  }
  return ls.join('\n');
}

function mutateData(text: string, r: Rng): string {
  let data: unknown;
  try {
    data = parse(text, { logLevel: 'error' });
  } catch {
    return text;
  }
  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value !== 'object' || value === null) return r.chance(0.1) ? r.pick(VALUES) : value;
    if (r.chance(0.08)) return r.pick(VALUES);
    if (Array.isArray(value)) {
      const out = value.map((v) => walk(v, depth + 1));
      if (r.chance(0.1)) out.push(r.pick(VALUES));
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!r.chance(0.05)) out[k] = walk(v, depth + 1);
    if (r.chance(0.1)) out[r.word()] = r.pick(VALUES);
    return out;
  };
  const mutated = walk(data, 0);
  return r.chance(0.5) ? JSON.stringify(mutated) : stringify(mutated);
}

describe('fuzzing flow files', () => {
  it(`validates ${MUTATIONS} seeded mutations of the examples to valid or to problems, never an exception`, async () => {
    const r = rng(SEED);
    const outcomes = { valid: 0, invalid: 0 };
    const sample: string[] = [];
    for (let i = 0; i < MUTATIONS; i++) {
      const source = r.pick(sources);
      let text = source.text;
      for (let n = r.int(1, 3); n > 0; n--) text = r.chance(0.7) ? mutateText(text, r) : mutateData(text, r);
      const file = join(root, source.name.replace(/\.yaml$/, `.fuzz-${i}.yaml`));
      writeFileSync(file, text);
      const result = await validateFlow(file, { servers: false });
      if (result.problems.length === 0) outcomes.valid += 1;
      else {
        outcomes.invalid += 1;
        for (const p of result.problems) expect(p.message.length, file).toBeGreaterThan(0);
      }
      try {
        await loadFlowText(text, { baseDir: root, confineTo: root });
      } catch (error) {
        if (!isFlowError(error))
          throw new Error(`mutation ${i} of ${source.name}: ${String(error)}`, { cause: error });
      }
      if (i % Math.floor(MUTATIONS / CLI_SAMPLE) === 0) sample.push(file);
    }
    expect(outcomes.valid + outcomes.invalid).toBe(MUTATIONS);
    expect(outcomes.invalid).toBeGreaterThan(MUTATIONS / 4);
    for (const file of sample) {
      const run = await runCli(['validate', file, '--offline'], { cwd: root });
      expect([0, 2], run.stderr).toContain(run.code);
      expect(run.stderr.trim().length).toBeGreaterThan(0);
      expect(run.stderr).not.toMatch(/internal error/);
    }
  }, 120_000);
});
