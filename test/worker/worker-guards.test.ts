import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { runWorkerCommand } from '../../src/cli/worker.js';
import { loadFlowText } from '../../src/flow/load.js';
import { silentLogger } from '../../src/log/logger.js';
import { createRuntime } from '../../src/runtime/create.js';
import { defineBuiltin } from '../../src/tools/builtin/user.js';
import { defineTool } from '../../src/tools/tool.js';
import { defineGuard } from '../../src/tools/user-guards/define.js';
import { RunQueue } from '../../src/worker/queue.js';
import { startWorker } from '../../src/worker/start.js';
import { PG_URL, SchemaPool, pgAvailable } from '../store/postgres-server.js';

const available = await pgAvailable();
const schemas = new SchemaPool(PG_URL);
const dir = mkdtempSync(join(tmpdir(), 'worker-guards-'));
afterAll(async () => {
  if (available) await schemas.dropAll();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

/** Waits (a deadline poll) until the run, driven by a worker, has completed. */
async function completed(client: ReturnType<typeof createRuntime>, runId: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await client.status(runId)).status !== 'completed') {
    if (Date.now() > deadline) throw new Error('the run did not complete');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('agent-runtime worker --guards', () => {
  it('loads the module before it connects: a missing file is a usage error', async () => {
    const io = { stopped: () => Promise.resolve(), logger: silentLogger };
    const error = await runWorkerCommand(
      ['--db', 'postgres://h/db', '--guards', join(dir, 'nope.mjs')],
      io,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/--guards .*nope\.mjs: no such file/);
  });
});

describe.runIf(available)('startWorker({ guards })', () => {
  it('a run driven by a worker goes through its guards', async () => {
    const booked: string[] = [];
    const book = defineTool<{ item: string }>({
      name: 'book',
      description: 'Book an item',
      inputSchema: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
      execute: ({ item }) => (booked.push(item), { booked: item }),
    });
    const noTents = defineGuard({
      name: 'no-tents',
      codes: { TENTS_SOLD_OUT: { number: 65000, outcome: 'REJECTED' } },
      before: (c) =>
        c.args.item === 'tent'
          ? c.reject('TENTS_SOLD_OUT', 'tents are sold out', 'offer a cabin instead')
          : null,
    });
    const flow = await loadFlowText(
      'id: booking\nversion: 1\nlocale: en\nnodes:\n  - id: book\n    tools: [book]\n',
      { knownTools: ['book'] },
    );
    const file = join(dir, 'turns.json');
    const turns = [
      { calls: [{ tool: 'book', args: { item: 'tent' } }] },
      { calls: [{ tool: 'builtin_node_finish', args: { summary: 'sold out' } }] },
    ];
    writeFileSync(file, JSON.stringify({ turns }));
    const db = schemas.urlFor(schemas.next('wg'));
    const queue = await RunQueue.open({ url: db, supervise: false });
    const client = createRuntime({ store: db, enqueue: queue.enqueue, logger: false });
    const handle = await startWorker({ db, tools: [book], guards: [noTents], logger: silentLogger });
    try {
      const { runId } = await client.start(flow, { input: { text: 'a tent' }, model: `scripted:${file}` });
      await completed(client, runId);
      const events = await (await client.db()).events(runId);
      const invoked = events.filter((e) => e.type === 'tool.invoked');
      expect([invoked[0]?.outcome, invoked[0]?.errorCode]).toEqual(['REJECTED', 'TENTS_SOLD_OUT']);
      expect(booked).toEqual([]);
    } finally {
      await handle.stop(1000);
      await client.close();
      await queue.close();
    }
  });
});

describe.runIf(available)('startWorker({ builtins })', () => {
  it('a run driven by a worker calls the application’s builtins', async () => {
    const notes: string[] = [];
    const noteAdd = defineBuiltin({
      name: 'note_add',
      description: { 'zh-CN': '记一条备注', en: 'Adds a note' },
      input: { properties: { text: { type: 'string' } }, required: ['text'] },
      execute: (call) => (notes.push(String(call.args.text)), call.ok('noted')),
    });
    const flow = await loadFlowText(
      'id: notes\nversion: 1\nlocale: en\nnodes:\n  - id: write\n    tools: [note_add]\n',
      { knownTools: ['note_add'] },
    );
    const file = join(dir, 'note-turns.json');
    const turns = [
      { calls: [{ tool: 'note_add', args: { text: 'from the worker' } }] },
      { calls: [{ tool: 'builtin_node_finish', args: { summary: 'noted' } }] },
    ];
    writeFileSync(file, JSON.stringify({ turns }));
    const db = schemas.urlFor(schemas.next('wb'));
    const queue = await RunQueue.open({ url: db, supervise: false });
    const client = createRuntime({ store: db, enqueue: queue.enqueue, logger: false });
    const handle = await startWorker({ db, builtins: [noteAdd], logger: silentLogger });
    try {
      const { runId } = await client.start(flow, { input: { text: 'note it' }, model: `scripted:${file}` });
      await completed(client, runId);
      const events = await (await client.db()).events(runId);
      const invoked = events.filter((e) => e.type === 'tool.invoked');
      expect([invoked[0]?.tool, invoked[0]?.outcome]).toEqual(['note_add', 'SUCCESS']);
      expect(notes).toEqual(['from the worker']);
    } finally {
      await handle.stop(1000);
      await client.close();
      await queue.close();
    }
  });
});
