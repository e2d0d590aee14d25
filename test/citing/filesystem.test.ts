import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { scriptedModel, type ScriptedTurn } from '../../src/model/scripted.js';
import { createRuntime } from '../../src/runtime/create.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { StoredEvent } from '../../src/store/store.js';

// A new user's flow against the official filesystem MCP server (a real child process): it reads a
// 2 KB notes file, writes a ticket, and cites `ticketPath` from write_file's prose answer and `owner`
// from inside the notes text. A value that is not in the file is REJECTED.

const require = createRequire(import.meta.url);
const SERVER = join(
  dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')),
  'dist',
  'index.js',
);

let dir: string;
let runtime: Runtime;

function notes(): string {
  const filler = Array.from(
    { length: 32 },
    (_, i) => `- ${i + 1}. The printer on floor 3 jams when printing duplex pages.`,
  );
  return [
    '# Printer notes',
    '',
    'Reported by the front desk. Owner: Zhang Wei (facilities).',
    'Marker: MARKER-SEVEN',
    ...filler,
  ].join('\n');
}

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'citing-fs-')));
  writeFileSync(join(dir, 'notes.md'), notes());
  runtime = createRuntime({ store: 'memory', logger: false });
});

afterEach(async () => {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

function flow() {
  return {
    id: 'ticket',
    locale: 'en' as const,
    mcpServers: { fs: { command: 'node', args: [SERVER, dir] } },
    nodes: [
      {
        id: 'file',
        instructions: 'Read the notes and file a ticket.',
        tools: ['read_text_file', 'write_file'],
        outputs: {
          ticketPath: { required: true, sources: ['evidence' as const], from: ['write_file'] },
          owner: { required: true, sources: ['evidence' as const], from: ['read_text_file'] },
        },
      },
    ],
  };
}

function turns(ticket: string, owners: string[]): ScriptedTurn[] {
  const write = {
    tool: 'write_file',
    args: { path: ticket, content: '# Ticket\nPrinter jams on duplex.\n' },
  };
  return [
    { calls: [{ tool: 'read_text_file', args: { path: join(dir, 'notes.md') } }] },
    { calls: [write] },
    { calls: [{ tool: 'builtin_node_approval', args: { tool: 'write_file', summary: 'file the ticket' } }] },
    { calls: [write] },
    {
      calls: [
        {
          tool: 'builtin_output_set',
          args: { key: 'ticketPath', value: ticket, sourceType: 'evidence', sourceRef: 'ev_2' },
        },
      ],
    },
    ...owners.map((owner) => ({
      calls: [
        {
          tool: 'builtin_output_set',
          args: { key: 'owner', value: owner, sourceType: 'evidence', sourceRef: 'ev_1' },
        },
      ],
    })),
    { calls: [{ tool: 'builtin_node_finish', args: { summary: 'ticket filed' } }] },
  ];
}

async function outputSets(runId: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const event of runtime.events(runId)) {
    if (event.type === 'tool.invoked' && event.tool === 'builtin_output_set') out.push(event);
    if (event.type === 'run.completed' || event.type === 'run.failed') break;
  }
  return out;
}

describe('citing facts from the official filesystem server’s prose and text results', () => {
  it('ticketPath from "Successfully wrote to …" and owner from inside the notes; the spans are recorded', async () => {
    expect(notes().length).toBeGreaterThan(2000); // a 2 KB text result: one leaf `{content: "…"}`
    const ticket = join(dir, 'ticket.md');
    const model = scriptedModel({ turns: turns(ticket, ['Zhang Wei']) });
    const loaded = await loadFlow(flow(), { baseDir: dir });
    const first = await runtime.start(loaded, { input: { text: 'File a ticket for the printer' }, model });
    expect(first.status).toBe('suspended');
    const done = await runtime.approve(first.runId, { comment: 'ok' });
    expect(done).toMatchObject({
      status: 'completed',
      outputs: { file: { ticketPath: ticket, owner: 'Zhang Wei' } },
    });
    expect(readFileSync(ticket, 'utf8')).toContain('Printer jams');
    const sets = await outputSets(first.runId);
    expect(sets.map((e) => e.outcome)).toEqual(['SUCCESS', 'SUCCESS']);
    const [path, owner] = sets.map((e) => e.result) as {
      match: { evidenceId: string; path: string[]; span: [number, number] }[];
    }[];
    const prefix = 'Successfully wrote to ';
    expect(path?.match).toEqual([
      {
        at: [],
        source: 'evidence',
        evidenceId: 'ev_2',
        path: ['content'],
        span: [prefix.length, prefix.length + ticket.length],
      },
    ]);
    const span = owner?.match[0]?.span as [number, number];
    expect(notes().slice(...span)).toBe('Zhang Wei');
  });

  it('a value that is not in the file — or only part of a word of it — is REJECTED with how matching works', async () => {
    const ticket = join(dir, 'ticket.md');
    const model = scriptedModel({ turns: turns(ticket, ['Li Lei', 'Zhang W', 'MARKER-SEVEN']) });
    const loaded = await loadFlow(flow(), { baseDir: dir });
    const first = await runtime.start(loaded, { input: { text: 'File a ticket for the printer' }, model });
    const done = await runtime.approve(first.runId, {});
    expect(done).toMatchObject({ status: 'completed', outputs: { file: { owner: 'MARKER-SEVEN' } } });
    const owners = (await outputSets(first.runId)).slice(1);
    expect(owners.map((e) => [e.outcome, e.errorCode])).toEqual([
      ['REJECTED', 'OUTPUT_VALUE_MISMATCH'],
      ['REJECTED', 'OUTPUT_VALUE_MISMATCH'],
      ['SUCCESS', null],
    ]);
    const rejected = owners[0];
    expect(rejected?.message).toBe(
      'Source check failed: the result ev_1 of read_text_file does not hold the value Li Lei. Next: cite the evidence whose text holds the exact value: a string may be a whole word or phrase inside a result text (at least 3 characters, 2 for Chinese or Japanese, never part of a longer word or number); any other value must equal a value of the result.',
    );
  });
});
