/**
 * PostgresStore on the real server (skipped when it does not answer): the Store contract, plus what
 * only a server with many connections shows — racing commits and leases from separate pools, and a
 * migration raced by several processes' worth of stores.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  createPostgresStore,
  PG_SCHEMA_VERSION,
  type PostgresStore,
} from '../../src/store/postgres/index.js';
import { openStore } from '../../src/store/open.js';
import { PG_URL, SchemaPool, pgAvailable } from './postgres-server.js';
import { event, newRun, runState, storeContract } from './store.contract.js';

const available = await pgAvailable();
const schemas = new SchemaPool(PG_URL);
afterAll(async () => {
  if (available) await schemas.dropAll();
});

if (available) {
  storeContract('PostgresStore (server)', (now) =>
    createPostgresStore(PG_URL, { schema: schemas.next('c'), now, poolSize: 2 }),
  );
}

describe.runIf(available)('PostgresStore on a server with many connections', () => {
  /** `n` stores on one new schema, each with its own pool (as separate processes would be). */
  async function stores(n: number): Promise<PostgresStore[]> {
    const schema = schemas.next('race');
    const first = await createPostgresStore(PG_URL, { schema, poolSize: 2 });
    const rest = await Promise.all(
      Array.from({ length: n - 1 }, () => createPostgresStore(PG_URL, { schema, poolSize: 2 })),
    );
    return [first, ...rest];
  }

  it('lets exactly one of several racing commits at one version win, every time', async () => {
    const all = await stores(4);
    await all[0]!.createRun(newRun('r1'), [event('r1', 1, 'run.started')]);
    for (let round = 0; round < 10; round++) {
      const run = (await all[0]!.getRun('r1'))!;
      const results = await Promise.allSettled(
        all.map((store, i) =>
          store.commit({
            runId: 'r1',
            expectedVersion: run.version,
            patch: { state: runState('r1', { by: i }) },
            events: [event('r1', run.lastSeq + 1, 'step', { by: i })],
          }),
        ),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const r of results)
        if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'VERSION_CONFLICT' });
      const after = (await all[0]!.getRun('r1'))!;
      expect(after).toMatchObject({ version: run.version + 1, lastSeq: run.lastSeq + 1 });
      const [stepEvent] = await all[0]!.events('r1', run.lastSeq);
      expect(stepEvent?.by).toEqual((after.state as unknown as { by: number }).by);
    }
    await Promise.all(all.map((s) => s.close()));
  });

  it('gives a free lease to exactly one of several racing owners', async () => {
    const all = await stores(4);
    for (let i = 0; i < 10; i++) await all[0]!.createRun(newRun(`r${i}`), []);
    const now = Date.now();
    for (let i = 0; i < 10; i++) {
      const got = await Promise.all(all.map((s, w) => s.acquireLease(`r${i}`, `w${w}`, now + 10_000, now)));
      expect(got.filter((r) => r !== null)).toHaveLength(1);
    }
    await Promise.all(all.map((s) => s.close()));
  });

  it('migrates a new schema once when several stores open it at the same moment', async () => {
    const schema = schemas.next('mig');
    const opened = await Promise.all(
      Array.from({ length: 4 }, () => createPostgresStore(PG_URL, { schema, poolSize: 1 })),
    );
    for (const store of opened) expect(await store.schemaVersion()).toBe(PG_SCHEMA_VERSION);
    await Promise.all(opened.map((s) => s.close()));
  });

  it('is what openStore gives for a postgres:// URL, in the schema the URL names', async () => {
    const schema = schemas.next('open');
    const store = await openStore(schemas.urlFor(schema));
    await store.createRun(newRun('r1'), []);
    const direct = await createPostgresStore(PG_URL, { schema });
    expect((await direct.getRun('r1'))?.runId).toBe('r1');
    expect(direct.schema).toBe(schema);
    await Promise.all([store.close(), direct.close()]);
  });
});
