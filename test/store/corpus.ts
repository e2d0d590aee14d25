import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll } from 'vitest';
import { createRuntime, scriptedModel, type Runtime } from '../../src/index.js';
import { createPostgresStore } from '../../src/postgres.js';
import { SqliteStore, type Store, type StoredEvent } from '../../src/store/index.js';
import { loadFrozen, type FrozenFile } from '../fixtures/run-documents/frozen.js';
import {
  SCENARIOS,
  corpusProviders,
  corpusTools,
  type CorpusWorld,
  type ScenarioName,
} from '../fixtures/run-documents/scenarios.js';

/**
 * What the corpus tests share: the stores a frozen document is loaded into (each test gets a fresh
 * one) and the runtime that continues it with the scenario's tools and script.
 */

const root = mkdtempSync(join(tmpdir(), 'run-documents-'));
afterAll(() => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));
let opened = 0;

/** The stores every document must load into and continue in: a SQLite file and PGlite. */
export const STORES: [string, () => Promise<Store>][] = [
  ['SQLite file', () => Promise.resolve(new SqliteStore({ path: join(root, `db${++opened}.db`) }))],
  ['PGlite', async () => createPostgresStore({ pglite: new PGlite() }, { schema: `corpus_${++opened}` })],
];

export function frozen(name: ScenarioName): FrozenFile {
  return JSON.parse(
    readFileSync(new URL(`../fixtures/run-documents/${name}.json`, import.meta.url), 'utf8'),
  ) as FrozenFile;
}

/** A frozen document loaded into a fresh store, and a runtime over it to continue its first run. */
export interface Continued {
  runtime: Runtime;
  /** The scripted model of the scenario (the runs were started with a model object). */
  model: ReturnType<typeof scriptedModel>;
  runId: string;
  file: FrozenFile;
  world: CorpusWorld;
}

/**
 * Loads the document of `name` into a store from `open`. `world` is the state of the tools' systems
 * the continuation meets (e.g. a write that landed before the crash).
 */
export async function continued(
  name: ScenarioName,
  open: () => Promise<Store>,
  world: CorpusWorld = { saved: [], looked: [] },
): Promise<Continued> {
  const store = await open();
  const file = frozen(name);
  await loadFrozen(store, file);
  const runtime = createRuntime({
    store,
    tools: corpusTools(world),
    providers: corpusProviders,
    logger: false,
  });
  const model = scriptedModel({ turns: SCENARIOS[name].turns });
  return { runtime, model, runId: file.runs[0]!.record.runId, file, world };
}

/** The run's whole trace (frozen events and the continuation's). */
export async function traceOf(runtime: Runtime, runId: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of runtime.events(runId, { follow: false })) events.push(event);
  return events;
}

/** The `tool.invoked` events of one call id. */
export function invocations(events: StoredEvent[], callId: string): StoredEvent[] {
  return events.filter((e) => e.type === 'tool.invoked' && e.callId === callId);
}
