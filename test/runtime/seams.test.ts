/**
 * One clock, one id source, one environment and one working directory, given to `createRuntime` and
 * reaching everything that reads them: the stored run record (memory, SQLite, PGlite, a PostgreSQL
 * server), its events, the takeover query of the recoverer, model-name resolution and `runFlow`.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import type { Store } from '../../src/store/store.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { startRecoverer } from '../../src/runtime/recoverer.js';
import { silentLogger } from '../../src/log/logger.js';
import { runFlow } from '../../src/testing/index.js';
import { PG_URL, SchemaPool, pgAvailable } from '../store/postgres-server.js';
import { startStrictFake, type StrictFake } from '../../src/testing/fake-model/server.js';
import { providerSetup } from '../providers/play.js';
import { call, eventsOf, flow, makeRuntime, script, sqliteUrl, tempDir, toolKit, turn } from './helpers.js';

/** 2020-01-01T00:00:00Z, moving one millisecond per reading (time goes on, in 2020). */
function clock2020(): () => number {
  let ms = Date.UTC(2020, 0, 1);
  return () => ms++;
}

const ids = { runId: () => 'run_fixed_0000000001', owner: () => 'rt_fixed' };
const in2020 = (iso: string | undefined): boolean => typeof iso === 'string' && iso.startsWith('2020-01-01T');

const available = await pgAvailable();
const schemas = new SchemaPool(PG_URL);
let pglite: PGlite;
beforeAll(async () => {
  pglite = await PGlite.create();
});
afterAll(async () => {
  await pglite.close();
  if (available) await schemas.dropAll();
});

const runtimes: Runtime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

type StoreKind = { name: string; store: (clock: () => number) => string | Store | Promise<Store> };
const STORES: StoreKind[] = [
  { name: 'memory', store: () => 'memory' },
  { name: 'SQLite', store: () => sqliteUrl() },
  // A Store object brings its own clock (every store takes `now`); given as a URL it gets the runtime's.
  {
    name: 'PGlite',
    store: (clock) =>
      createPostgresStore(
        { pglite },
        { schema: `seams${Math.floor(Math.random() * 1e9)}`, now: () => new Date(clock()) },
      ),
  },
  ...(available
    ? [{ name: 'PostgreSQL server', store: () => `${PG_URL}?schema=${schemas.next('seams')}` }]
    : []),
];

describe.each(STORES)('a 2020 clock on the $name store', ({ store }) => {
  it('stamps the stored run record, its thread-free events and its lease in 2020, with the injected ids', async () => {
    const clock = clock2020();
    const kit = toolKit();
    const given = store(clock);
    const runtime = makeRuntime(kit, { store: typeof given === 'string' ? given : await given, clock, ids });
    runtimes.push(runtime);
    const summary = await runtime.start(await flow({ nodes: [{ id: 'work', tools: ['lookup'] }] }), {
      input: { text: 'find 7' },
      model: script(turn([call.tool('lookup', { id: 7 })]), turn([call.finish()])),
    });
    expect(summary).toMatchObject({ runId: 'run_fixed_0000000001', status: 'completed' });
    const record = await (await runtime.db()).getRun(summary.runId);
    expect(record).not.toBeNull();
    expect(in2020(record?.createdAt), `createdAt ${record?.createdAt}`).toBe(true);
    expect(in2020(record?.updatedAt), `updatedAt ${record?.updatedAt}`).toBe(true);
    const events = await eventsOf(runtime, summary.runId);
    expect(events.length).toBeGreaterThan(3);
    expect(events.filter((e) => !in2020(e.ts)).map((e) => `${e.type} ${e.ts}`)).toEqual([]);
    expect(kit.count('lookup')).toBe(1);
  });
});

describe('the recoverer beside a runtime', () => {
  it('asks the store for abandoned runs at the runtime clock, not the wall clock', async () => {
    // A 2020 clock: a lease that expired in 2020 is abandoned; one expiring in 2021 is live then,
    // although by the wall clock it expired long ago.
    const clock = clock2020();
    const seen: number[] = [];
    const runtime = makeRuntime(toolKit(), { clock });
    runtimes.push(runtime);
    const db = await runtime.db();
    const original = db.unleasedRuns.bind(db);
    db.unleasedRuns = (now, limit) => {
      seen.push(now);
      return original(now, limit);
    };
    const recoverer = startRecoverer(runtime, { intervalMs: 60_000, logger: silentLogger });
    await expect.poll(() => seen.length).toBeGreaterThan(0);
    recoverer.stop();
    expect(new Date(seen[0]!).getUTCFullYear()).toBe(2020);
  });
});

describe('createRuntime({ env })', () => {
  let fake: StrictFake;
  beforeAll(async () => {
    fake = await startStrictFake('openai', (i) =>
      i === 0
        ? {
            calls: [{ id: 'c1', name: 'builtin_node_finish', args: JSON.stringify({ summary: 'done' }) }],
          }
        : { text: 'no more turns' },
    );
  });
  afterAll(() => fake.close());

  it('resolves a model name from the env it was given, with nothing in process.env', async () => {
    const { model, env } = providerSetup('openai', fake.url, fake.key, false);
    for (const name of Object.keys(env)) expect(process.env[name], name).toBeUndefined();
    const runtime = makeRuntime(toolKit(), { env });
    runtimes.push(runtime);
    const summary = await runtime.start(await flow({ model, nodes: [{ id: 'work', tools: ['lookup'] }] }), {
      input: { text: 'hi' },
    });
    expect(summary.status).toBe('completed');
    expect(fake.refusals()).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it('without the key in the env given, the same model name is refused before the run starts', async () => {
    const { model } = providerSetup('openai', fake.url, fake.key, false);
    const runtime = makeRuntime(toolKit(), { env: {} });
    runtimes.push(runtime);
    await expect(
      runtime.start(await flow({ model, nodes: [{ id: 'work', tools: ['lookup'] }] }), {
        input: { text: 'hi' },
      }),
    ).rejects.toMatchObject({ code: 'REQUEST_INVALID', message: expect.stringContaining('OPENAI_API_KEY') });
  });
});

describe('runFlow of ./testing', () => {
  it('takes the clock, ids and working directory, and resolves a flow path and the store against that folder', async () => {
    const dir = tempDir();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      `${dir}/flow.yaml`,
      [
        'id: seams',
        'locale: en',
        'model: scripted:./turns.yaml',
        'nodes:',
        '  - id: work',
        '    tools: []',
      ].join('\n'),
    );
    writeFileSync(
      `${dir}/turns.yaml`,
      ['turns:', '  - calls:', '      - tool: builtin_node_finish', '        args: { summary: done }'].join(
        '\n',
      ),
    );
    const run = await runFlow('flow.yaml', {
      input: 'hi',
      cwd: dir,
      clock: clock2020(),
      ids,
      store: 'sqlite:rt.db',
    });
    try {
      expect(run.summary).toMatchObject({ runId: 'run_fixed_0000000001', status: 'completed' });
      const record = await (await run.runtime.db()).getRun(run.runId);
      expect(in2020(record?.createdAt)).toBe(true);
      expect((await run.trace()).every((e) => in2020(e.ts))).toBe(true);
      const { existsSync } = await import('node:fs');
      expect(existsSync(`${dir}/rt.db`)).toBe(true);
    } finally {
      await run.close();
    }
  });
});
