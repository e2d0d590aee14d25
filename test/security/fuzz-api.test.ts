import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketTools } from '../server/fixtures.js';
import { quietLogger, reached, tempDir } from '../server/helpers.js';
import { QUICK_TURNS, SEC, startTarget, type Target } from './helpers.js';
import { randomBody, randomValue, rng, type Rng, type Schema } from './random.js';
import { ModelError } from '../../src/model/errors.js';

/**
 * A seeded fuzz of every route of the OpenAPI document, as any role or none: at least 2,000
 * requests with odd path parameters, queries, headers and bodies (schema-shaped and garbage).
 * No answer may be a 5xx, none may hang, and the server must still answer /healthz afterwards.
 */

const SEED = Number(process.env.SECURITY_FUZZ_SEED ?? 1313);
const REQUESTS = 2_000;
const CONCURRENCY = 12;
const ASK_TURNS = `turns:
  - { calls: [{ tool: builtin_node_follow_up, args: { question: Which printer? } }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;

interface Operation {
  method: string;
  path: string;
  params: { name: string; in: string; schema?: Schema }[];
  body: Schema | null;
}

let t: Target;
const operations: Operation[] = [];
const runIds: string[] = [];

beforeAll(async () => {
  const tools = ticketTools();
  const flowsDir = await tempDir({
    'quick.yaml':
      'id: quick\nlocale: en\nmodel: scripted:./quick-turns.yaml\nnodes: [{ id: main, tools: [ticket_list] }]\n',
    'quick-turns.yaml': QUICK_TURNS,
    'ask.yaml':
      'id: ask\nlocale: en\nmodel: scripted:./ask-turns.yaml\nnodes: [{ id: main, tools: [ticket_list] }]\n',
    'ask-turns.yaml': ASK_TURNS,
  });
  t = await startTarget({
    flowsDir,
    runtime: {
      tools: tools.tools,
      providers: (provider, modelId) => {
        throw new ModelError('CONFIG', `model ${provider}:${modelId} is not configured in this test`);
      },
    },
    server: { scriptedModels: flowsDir, heartbeatMs: 60_000, maxStreamsPerToken: 4 },
  });
  for (const flowId of ['quick', 'ask']) {
    const response = await t.call('POST', '/v1/runs', { token: SEC.operator, json: { flowId, input: 'x' } });
    const { runId } = (await response.json()) as { runId: string };
    await reached(t.runtime, runId, flowId === 'ask' ? 'run.suspended' : 'run.completed');
    runIds.push(runId);
  }
  const doc = (await (await t.call('GET', '/v1/openapi.json', { token: SEC.viewer })).json()) as {
    paths: Record<
      string,
      Record<
        string,
        { parameters?: Operation['params']; requestBody?: { content: Record<string, { schema: Schema }> } }
      >
    >;
    components?: { schemas?: Record<string, Schema> };
  };
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const content = op.requestBody?.content ?? {};
      const body = content['application/json']?.schema ?? null;
      operations.push({
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        body: body ? resolveRefs(body, doc.components?.schemas ?? {}) : null,
      });
    }
  }
}, 60_000);
afterAll(async () => {
  await t.stop();
});

function resolveRefs(schema: Schema, components: Record<string, Schema>, depth = 0): Schema {
  if (depth > 8) return {};
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop() as string;
    return resolveRefs(components[name] ?? {}, components, depth + 1);
  }
  const out: Schema = { ...schema };
  if (schema.properties)
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([k, v]) => [k, resolveRefs(v, components, depth + 1)]),
    );
  if (schema.items) out.items = resolveRefs(schema.items, components, depth + 1);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
    if (schema[key]) out[key] = schema[key].map((s) => resolveRefs(s, components, depth + 1));
  return out;
}

const TOKENS = [undefined, 'garbage', ...Object.values(SEC)];
const ODD_IDS = [
  '',
  '..',
  '../../etc/passwd',
  '%00',
  'run_' + 'f'.repeat(20),
  'x'.repeat(3000),
  '😀',
  'run_1;DROP',
  '%2e%2e%2f',
  "' OR 1=1",
];

function pathOf(op: Operation, r: Rng): string {
  return op.path.replace(/\{(\w+)\}/g, () => {
    const id = r.chance(0.5) && runIds.length > 0 ? r.pick(runIds) : r.pick(ODD_IDS);
    return encodeURIComponent(id);
  });
}

function queryOf(op: Operation, r: Rng): string {
  const parts: string[] = [];
  for (const p of op.params.filter((p) => p.in === 'query'))
    if (r.chance(0.6)) parts.push(`${p.name}=${encodeURIComponent(String(randomValue(p.schema ?? {}, r)))}`);
  if (r.chance(0.2)) parts.push(`${r.word()}=${encodeURIComponent(r.word())}`);
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

function requestOf(op: Operation, r: Rng): { url: string; init: RequestInit } {
  const headers: Record<string, string> = {};
  const token = r.pick(TOKENS);
  if (token) headers.authorization = r.chance(0.95) ? `Bearer ${token}` : `Basic ${token}`;
  if (r.chance(0.2)) headers['idempotency-key'] = r.chance(0.5) ? r.headerWord() : 'k'.repeat(r.int(1, 400));
  if (r.chance(0.2)) headers['last-event-id'] = r.pick(['0', '-1', '1e9', 'abc', '3']);
  let body: string | undefined;
  if (op.method !== 'GET' && op.method !== 'HEAD') {
    const made = randomBody(op.body, r);
    body = made.text;
    headers['content-type'] = made.type;
  }
  const path = r.chance(0.05) ? `${pathOf(op, r)}/${r.word()}` : pathOf(op, r);
  return {
    url: `${t.url}${path}${queryOf(op, r)}`,
    init: { method: op.method, headers, ...(body !== undefined ? { body } : {}) },
  };
}

describe('fuzzing the API from its OpenAPI document', () => {
  it(`answers ${REQUESTS} seeded requests without a 5xx or a hang, and stays alive`, async () => {
    expect(operations.length).toBeGreaterThanOrEqual(8);
    const r = rng(SEED);
    const plan = Array.from({ length: REQUESTS }, () => requestOf(r.pick(operations), r));
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < plan.length) {
        const { url, init } = plan[next++] as { url: string; init: RequestInit };
        try {
          const response = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (response.status >= 500)
            failures.push(`${init.method} ${url} → ${response.status} ${await response.text()}`);
          else await response.body?.cancel();
        } catch (error) {
          failures.push(
            `${init.method} ${url.slice(0, 200)} → ${(error as Error).name}: ${(error as Error).message}`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(failures.slice(0, 5)).toEqual([]);
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(REQUESTS);
    // The fuzz must reach past authentication and validation, not only bounce off them.
    expect([...statuses.keys()].filter((s) => s < 300).length).toBeGreaterThan(0);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(50);
    expect(quietLogger.records.filter((rec) => /internal/i.test(rec.message))).toEqual([]);
    const health = await fetch(`${t.url}/healthz`, { signal: AbortSignal.timeout(1_000) });
    expect(health.status).toBe(200);
  }, 120_000);
});
