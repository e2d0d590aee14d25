/**
 * Threads on PostgreSQL with workers (skipped when the real server does not answer; CI requires it):
 * the runs of a thread are driven by a worker, the second run starts with the first message and
 * reply, a message while the last run runs or waits on an approval is THREAD_BUSY and changes nothing,
 * and the thread lists every message once the worker has finished.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.js';
import { loadFlowText, type LoadedFlow } from '../../src/flow/load.js';
import type { RunSummary } from '../../src/records/summary.js';
import { createRuntime, type Runtime } from '../../src/runtime/create.js';
import { defineTool } from '../../src/tools/tool.js';
import { RunQueue } from '../../src/worker/queue.js';
import { startWorker, type WorkerHandle } from '../../src/worker/start.js';
import { PG_URL, SchemaPool, pgAvailable } from '../store/postgres-server.js';

const available = await pgAvailable();
const schemas = new SchemaPool(PG_URL);
const dir = mkdtempSync(join(tmpdir(), 'worker-threads-'));
afterAll(async () => {
  if (available) await schemas.dropAll();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

const saved: string[] = [];
const tools = [
  defineTool<{ id: number }>({
    name: 'lookup',
    description: 'Look up a ticket',
    inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
    execute: ({ id }) => ({ id, owner: 'Han Meimei' }),
  }),
  defineTool<{ name: string }>({
    name: 'save',
    description: 'Save a note',
    write: true,
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    execute: ({ name }) => (saved.push(name), { saved: name }),
  }),
];

/** A scripted model file of these turns, as a model name the worker resolves. */
function script(name: string, turns: unknown[]): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ turns }));
  return `scripted:${file}`;
}

async function until<T>(check: () => Promise<T | null | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const FIRST = 'Who owns ticket 7? Later save it as notes-owner.txt';

describe.runIf(available)('threads driven by workers (PostgreSQL)', () => {
  let db: string;
  let queue: RunQueue;
  let client: Runtime;
  let worker: WorkerHandle;
  let flow: LoadedFlow;

  beforeAll(async () => {
    db = schemas.urlFor(schemas.next('t'));
    queue = await RunQueue.open({ url: db, supervise: false });
    client = createRuntime({ store: db, enqueue: queue.enqueue, logger: false, leaseMs: 800 });
    flow = await loadFlowText(
      `id: notes
version: 1
locale: en
tools:
  save:
    write: true
    params:
      name: { source: user }
nodes:
  - id: talk
    answer: text
    instructions: Answer about tickets and save notes.
    tools: [lookup, save]
`,
      { knownTools: ['lookup', 'save'] },
    );
    worker = await startWorker({
      db,
      tools,
      leaseMs: 800,
      sweepMs: 200,
      pollingIntervalSeconds: 0.5,
      logger: silentLogger,
    });
  });
  afterAll(async () => {
    await worker?.stop(1000);
    await client?.close();
    await queue?.close();
  });

  const status = (runId: string, wanted: RunSummary['status']) =>
    until(async () => {
      const s = await client.status(runId);
      return s.status === wanted ? s : null;
    });

  it('remembers across runs, refuses a message while busy, and lists the conversation', async () => {
    const first = await client.start(flow, {
      thread: 'W1',
      input: { text: FIRST },
      model: script('first', [
        { calls: [{ tool: 'lookup', args: { id: 7 } }] },
        { calls: [], text: 'Han Meimei owns it.' },
      ]),
    });
    expect(first.status).toBe('running');
    // The worker has not finished it yet or has: either way a message now must not be lost.
    const done = await status(first.runId, 'completed');
    expect(done).toMatchObject({ reply: 'Han Meimei owns it.', threadId: 'W1' });

    const second = await client.start(flow, {
      thread: 'W1',
      input: { text: 'Save it now' },
      model: script('second', [
        { calls: [{ tool: 'save', args: { name: 'notes-owner.txt' } }] },
        {
          calls: [{ tool: 'builtin_node_approval', args: { tool: 'save', summary: 'save notes-owner.txt' } }],
        },
        { calls: [{ tool: 'save', args: { name: 'notes-owner.txt' } }] },
        { calls: [{ tool: 'builtin_node_finish', args: { summary: 'Saved notes-owner.txt.' } }] },
      ]),
    });
    const waiting = await status(second.runId, 'suspended');
    expect(waiting.suspension?.kind).toBe('APPROVAL');
    // `source: user` counted what the user said in the first run of the thread.
    expect(
      (waiting.suspension?.pending as { userProvenance?: Record<string, string> }).userProvenance,
    ).toEqual({
      name: FIRST,
    });

    await expect(
      client.start(flow, { thread: 'W1', input: { text: 'hello?' }, model: script('busy', []) }),
    ).rejects.toMatchObject({ code: 'THREAD_BUSY', runId: second.runId });
    expect((await client.thread('W1'))?.runs).toHaveLength(2);

    await client.approve(second.runId);
    const completed = await status(second.runId, 'completed');
    expect(completed.reply).toBe('Saved notes-owner.txt.');
    expect(saved).toEqual(['notes-owner.txt']);

    const view = await client.thread('W1');
    expect(view?.state).toBe('idle');
    expect(view?.messages.map((m) => [m.role, m.kind, m.text])).toEqual([
      ['user', 'input', FIRST],
      ['assistant', 'reply', 'Han Meimei owns it.'],
      ['user', 'input', 'Save it now'],
      ['assistant', 'approval', 'save notes-owner.txt'],
      ['user', 'decision', 'approved'],
      ['assistant', 'reply', 'Saved notes-owner.txt.'],
    ]);
    // The second run starts with the first message and reply, fixed when it was created.
    const record = await (await client.db()).getRun(second.runId);
    const doc = record?.state as { thread?: { id: string; history: { role: string }[] } };
    expect(doc.thread?.id).toBe('W1');
    expect(doc.thread?.history.map((t) => t.role)).toEqual(['user', 'assistant']);
  });
});
