/** A JSON Schema as far as the fuzz reads it. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  [key: string]: unknown;
}

/** A seeded random source (mulberry32): the same seed gives the same fuzz. */
export interface Rng {
  next(): number;
  int(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  word(): string;
  /** A word fit for a header value (visible ASCII). */
  headerWord(): string;
}

/** A seeded Rng. */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const self: Rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)] as never,
    word: () => self.pick(WORDS) + (self.chance(0.3) ? String(self.int(0, 999)) : ''),
    headerWord: () => self.word().replace(/[^\x21-\x7e]/g, '') || 'h',
  };
  return self;
}

const WORDS = [
  'a',
  'approve',
  'reject',
  'x',
  '',
  ' ',
  'null',
  'true',
  '0',
  '-1',
  '1e309',
  'NaN',
  '__proto__',
  'constructor',
  '${HOME}',
  '../../etc/passwd',
  '/dev/zero',
  'scripted:/etc/passwd',
  'scripted:../x',
  'openai:gpt-4.1',
  '\u0000',
  '<script>',
  '😀',
  'ask',
  'quick',
  'tickets',
  'run_00000000000000000000',
  '%s%n',
  'A'.repeat(200),
];

/** A random value: shaped by `schema` most of the time, anything else otherwise. */
export function randomValue(schema: Schema, r: Rng, depth = 0): unknown {
  if (depth > 6 || r.chance(0.1)) return wild(r, depth);
  if (schema.enum && schema.enum.length > 0 && r.chance(0.8)) return r.pick(schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union && union.length > 0) return randomValue(r.pick(union), r, depth + 1);
  const type = Array.isArray(schema.type) ? r.pick(schema.type) : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(schema.properties ?? {}))
        if ((schema.required ?? []).includes(key) ? r.chance(0.9) : r.chance(0.5))
          out[key] = randomValue(sub, r, depth + 1);
      if (r.chance(0.15)) out[r.word()] = wild(r, depth + 1);
      return out;
    }
    case 'array':
      return Array.from({ length: r.int(0, 4) }, () => randomValue(schema.items ?? {}, r, depth + 1));
    case 'string':
      return r.word();
    case 'integer':
      return r.pick([0, 1, -1, 3, 100, 2 ** 31, Number.MAX_SAFE_INTEGER]);
    case 'number':
      return r.pick([0, 1.5, -1, 1e300]);
    case 'boolean':
      return r.chance(0.5);
    default:
      return wild(r, depth);
  }
}

function wild(r: Rng, depth: number): unknown {
  switch (r.int(0, 7)) {
    case 0:
      return null;
    case 1:
      return r.word();
    case 2:
      return r.int(-5, 5);
    case 3:
      return [];
    case 4:
      return depth < 4 ? { [r.word()]: wild(r, depth + 1) } : {};
    case 5:
      return r.chance(0.5);
    case 6:
      return flowLike(r);
    default:
      return {
        id: r.word(),
        nodes: [{ id: r.word() }],
        mcpServers: { s: { command: r.pick(['id', 'node', 'sh']) } },
      };
  }
}

function flowLike(r: Rng): unknown {
  return {
    id: r.pick(['f', 'quick', 'a b', '']),
    locale: r.pick(['en', 'zh-CN', 'xx']),
    model: r.pick([
      'scripted:quick-turns.yaml',
      'scripted:/etc/passwd',
      'scripted:../../x',
      'openai:gpt-4.1',
      'bad',
    ]),
    nodes: [{ id: 'main', tools: r.pick([['ticket_list'], ['nope'], []]) }],
    ...(r.chance(0.3)
      ? { mcpServers: { m: r.pick([{ command: 'id' }, { url: 'http://169.254.169.254/' }, {}]) } }
      : {}),
    ...(r.chance(0.2) ? { nodes: 'x' } : {}),
  };
}

/** A request body: JSON shaped by the schema, or malformed text, odd types or nesting. */
export function randomBody(schema: Schema | null, r: Rng): { text: string; type: string } {
  const type = r.pick([
    'application/json',
    'application/json',
    'application/json',
    'application/yaml',
    'text/plain',
    '',
  ]);
  switch (r.int(0, 9)) {
    case 0:
      return { text: '{"a":', type };
    case 1:
      return { text: `${'['.repeat(r.int(10, 5000))}`, type };
    case 2:
      return { text: 'a: &a [x]\nb: [*a,*a,*a]\n', type };
    case 3:
      return { text: '', type };
    default:
      return { text: JSON.stringify(randomValue(schema ?? {}, r)), type };
  }
}
