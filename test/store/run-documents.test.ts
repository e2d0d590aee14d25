import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { scriptedModel } from '../../src/model/scripted.js';
import { createRuntime } from '../../src/runtime/create.js';
import { createPostgresStore } from '../../src/store/postgres/connect.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { RunRecord, Store, StoredEvent, StoredMessage } from '../../src/store/store.js';
import type { EvidenceRecord } from '../../src/domain/run-state.js';
import { SCENARIOS, corpusTools, type ScenarioName } from '../fixtures/run-documents/scenarios.js';

/** A frozen document file: the runs as a store held them. */
interface Frozen {
  documentVersion: number;
  runs: { record: RunRecord; events: StoredEvent[]; messages: StoredMessage[]; evidence: EvidenceRecord[] }[];
}

const root = mkdtempSync(join(tmpdir(), 'run-documents-'));
afterAll(() => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));
let files = 0;

function frozen(name: ScenarioName): Frozen {
  return JSON.parse(
    readFileSync(new URL(`../fixtures/run-documents/${name}.json`, import.meta.url), 'utf8'),
  ) as Frozen;
}

/**
 * Puts frozen runs into a store through its public API: the run with its first event, then one commit
 * appending the rest (events, the conversation, evidence) and writing the frozen state document as it
 * was, raw (the store decodes it when the run is loaded).
 */
async function load(store: Store, file: Frozen): Promise<void> {
  for (const { record, events, messages, evidence } of file.runs) {
    const { version: _v, lastSeq: _s, createdAt: _c, updatedAt: _u, ...run } = record;
    const [first, ...rest] = events;
    const created = await store.createRun(run, first ? [first] : []);
    await store.commit({
      runId: run.runId,
      expectedVersion: created.version,
      patch: { state: record.state },
      events: rest,
      messages,
      evidence,
    });
  }
}

const stores: [string, () => Promise<Store>][] = [
  ['SQLite file', () => Promise.resolve(new SqliteStore({ path: join(root, `db${++files}.db`) }))],
  ['PGlite', async () => createPostgresStore({ pglite: new PGlite() }, { schema: `corpus_${++files}` })],
];

describe.each(stores)('frozen run documents continue to completion (%s)', (_kind, open) => {
  async function continued(name: ScenarioName) {
    const saved: string[] = [];
    const store = await open();
    const file = frozen(name);
    expect(file.documentVersion).toBe(1);
    await load(store, file);
    const runtime = createRuntime({ store, tools: corpusTools(saved), logger: false });
    const model = scriptedModel({ turns: SCENARIOS[name].turns });
    const runId = file.runs[0]!.record.runId;
    return { runtime, store, model, runId, saved };
  }

  it('a run suspended for an approval: approved, the write runs once and the run completes', async () => {
    const { runtime, model, runId, saved } = await continued('suspended-approval');
    const before = await runtime.status(runId);
    expect(before).toMatchObject({ status: 'suspended', suspension: { kind: 'APPROVAL' } });
    const done = await runtime.approve(runId, { model, who: 'corpus' });
    expect(done.status).toBe('completed');
    expect(saved).toEqual(['Alpha']);
    await runtime.close();
  });

  it('a run suspended on a follow-up: answered, the node goes on and the run completes', async () => {
    const { runtime, model, runId } = await continued('suspended-follow-up');
    expect(await runtime.status(runId)).toMatchObject({
      status: 'suspended',
      suspension: { kind: 'FOLLOW_UP' },
    });
    const done = await runtime.answer(runId, '2', { model });
    expect(done.status).toBe('completed');
    await runtime.close();
  });
});
