import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/trace/events.js';
import { loadFlow } from '../../src/flow/load.js';
import type { CodeStepContext } from '../../src/domain/code-step.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { StoredEvent } from '../../src/store/store.js';
import {
  call,
  eventsOf,
  flow,
  gatedModel,
  makeRuntime,
  script,
  sqliteUrl,
  toolKit,
  turn,
} from './helpers.js';

const DOC = join(import.meta.dirname, '../../docs/trace.md');
const BASE = ['seq', 'ts', 'runId', 'type'];
/** Documented optional fields no scenario here produces (delegation and MCP elicitation have their own tests). */
const NOT_PRODUCED_HERE = new Set([
  'run.started.parentRunId',
  'tool.invoked.resultTruncated',
  // MCP icons (docs/console.md): test/e2e/console-icons.e2e.test.ts produces and checks them.
  'tool.invoked.icon',
  'mcp.connected.icon',
  'run.resumed.action',
  // Approval policies (docs/approvals.md): test/server/approval-policies.test.ts produces and checks them.
  'run.resumed.approvers',
  'run.resumed.args',
  'run.resumed.editedFrom',
  // A map item's node run with a model (test/cli/labelled-progress.test.ts): the item on each event.
  'react.round.item',
  'model.response.item',
  'react.no_tool_calls.item',
  'tool.progress.item',
  'tool.invoked.item',
  'tool.skipped.item',
  'react.stall.item',
  'phase.hint.item',
  'run.message.item',
  'context.compacted.item',
  'node.suspended.item',
  'run.suspended.item',
  'node.failed.item',
]);
/**
 * Event types that need a real MCP server asking for them (test/mcp/sampling.test.ts) or logging
 * (test/mcp/server-log.test.ts), several people
 * (test/server/approval-policies.test.ts) or time passing (approval expiry: test/server/notify/*.test.ts),
 * produced and checked there.
 */
const PRODUCED_ELSEWHERE = new Set<string>([
  'mcp.log',
  // A question held open, answered from a second process (test/mcp/elicitation-hold.test.ts).
  'mcp.held',
  'mcp.answered',
  // A real MCP server connected (test/mcp/protocol-trace.test.ts).
  'mcp.connected',
  'sampling.requested',
  'sampling.completed',
  'approval.voted',
  // A person's steering message (test/runtime/steering.test.ts).
  'run.message',
  'approval.expired',
  'approval.escalated',
  // A tool that runs as an MCP task (test/mcp/task-wait.test.ts).
  'tool.task',
]);

interface DocSection {
  type: string;
  fields: Map<string, { optional: boolean }>;
  example: Record<string, unknown>;
}

/** The event sections of docs/trace.md: `## <type>`, a field table, one ```json example line. */
function parseDoc(text: string): { common: string[]; sections: DocSection[] } {
  const parts = text.split(/^## /m).slice(1);
  const fieldsOf = (body: string) =>
    new Map(
      [...body.matchAll(/^\|\s*`(\w+)`\s*\|([^|]*)\|/gm)].map((m) => [
        m[1] as string,
        { optional: (m[2] ?? '').includes('optional') },
      ]),
    );
  const common = [...fieldsOf(parts.find((p) => p.startsWith('Common fields')) ?? '').keys()];
  const sections = parts
    .filter((p) => /^[a-z_]+\.[a-z_]+\n/.test(p))
    .map((p) => {
      const type = p.slice(0, p.indexOf('\n'));
      const block = /```json\n(.*)\n```/.exec(p);
      if (!block?.[1]) throw new Error(`docs/trace.md: ${type} has no one-line json example`);
      return { type, fields: fieldsOf(p), example: JSON.parse(block[1]) as Record<string, unknown> };
    });
  return { common, sections };
}

/** Runs that between them produce every event type (in English, with local tools). */
async function everyEvent(runtimes: Runtime[]): Promise<StoredEvent[]> {
  const db = sqliteUrl();
  const kit = toolKit();
  const main = makeRuntime(kit, { store: db });
  runtimes.push(main);
  const loaded = await flow({
    nodes: [
      {
        id: 'query',
        tools: ['lookup', 'broken', 'save', 'noop'],
        outputs: { item: { required: true, sources: ['evidence'], from: ['lookup'] } },
      },
      { id: 'report' },
    ],
    edges: [{ from: 'query', to: 'report' }],
  });
  const model = script(
    { text: 'Let me think.' },
    turn([call.tool('broken'), call.tool('lookup', { id: 7 })]),
    turn([call.tool('lookup', { id: 7 })]),
    turn([call.tool('save', { name: 'item-7' }), call.tool('noop')]),
    turn([call.approval('save', 'Save item-7')]),
    turn([call.tool('save', { name: 'item-7' })]),
    turn([call.ask('Which one?', ['7', '8'])]),
    turn([call.output('item', 'item-7', 'evidence', 'ev_2')]),
    turn([call.finish('found it')]),
    turn([call.fail('no report today')]),
  );
  const a = await main.start(loaded, { input: { text: 'find item 7' }, model });
  await main.approve(a.runId, { comment: 'ok', who: 'ana' });
  await main.answer(a.runId, '7', { who: 'ana' });
  // The report node failed (FAILED_BY_MODEL): an operator retries it, and it finishes this time.
  await main.retry(a.runId, {
    who: 'ana',
    model: script(...Array.from({ length: 10 }, () => ({})), turn([call.finish('reported')])),
  });
  const b = await main.start(loaded, { input: { text: 'x' }, model: script(turn([call.ask('Q?')])) });
  await main.cancel(b.runId);

  // A takeover (run.resumed RECOVERY) and a completed run.
  const plain = await flow({ nodes: [{ id: 'only', tools: ['lookup'] }] });
  const turns = [turn([call.tool('lookup', { id: 1 })]), turn([call.finish()])];
  const gated = gatedModel(1, ...turns);
  const dead = makeRuntime(kit, { store: db, leaseMs: 60_000 });
  const rescuer = makeRuntime(kit, { store: db });
  runtimes.push(dead, rescuer);
  let runId = '';
  const abandoned = dead.start(plain, {
    input: { text: 'x' },
    model: gated,
    onAccepted: (s) => (runId = s.runId),
  });
  await gated.reached;
  const store = await rescuer.db();
  const row = (await store.getRun(runId))!;
  await store.commit({ runId, expectedVersion: row.version, patch: { leaseExpiresAt: Date.now() - 1 } });
  await rescuer.resume(runId, { model: script(...turns) });
  gated.release();
  await abandoned;
  // A compaction (context.compacted): a context budget too small for three rounds.
  const tight = await flow({
    id: 'tight',
    limits: { contextTokens: 100 },
    nodes: [{ id: 'only', tools: ['lookup'] }],
  });
  const lookups = [1, 2, 3].map((id) => turn([call.tool('lookup', { id })]));
  const c = await main.start(tight, {
    input: { text: 'x' },
    model: script(...lookups, turn([call.finish()])),
  });
  // Progress reports of a running call (tool.progress).
  const scanning = await flow({ id: 'scanning', nodes: [{ id: 'only', tools: ['scan'] }] });
  const d = await main.start(scanning, {
    input: { text: 'x' },
    model: script(turn([call.tool('scan')]), turn([call.finish()])),
  });
  // A map over two items (node.started nodeRun, from, item).
  const mapped = await loadFlow({
    id: 'mapped',
    locale: 'en',
    nodes: [
      { id: 'each', map: { over: '[1..2]', node: 'body' } },
      { id: 'body', outputs: { i: { required: true } }, run: (ctx: CodeStepContext) => ({ i: ctx.item }) },
      { id: 'done', run: () => ({}) },
    ],
    edges: [{ from: 'each', to: 'done' }],
  });
  const m = await main.start(mapped, { input: { text: 'x' }, model: script() });
  return [
    ...(await eventsOf(main, m.runId)),
    ...(await eventsOf(main, a.runId)),
    ...(await eventsOf(main, d.runId)),
    ...(await eventsOf(main, c.runId)),
    ...(await eventsOf(main, b.runId)),
    ...(await eventsOf(main, runId)),
  ];
}

/** docs/trace.md is checked against EVENT_TYPES and against the events a real runtime writes. */
describe('docs/trace.md', () => {
  const doc = parseDoc(readFileSync(DOC, 'utf8'));
  const runtimes: Runtime[] = [];
  let events: StoredEvent[] = [];
  beforeAll(async () => {
    events = await everyEvent(runtimes);
  });
  afterAll(async () => {
    await Promise.all(runtimes.map((r) => r.close()));
  });

  it('has one section per event type, in the order of EVENT_TYPES', () => {
    expect(doc.sections.map((s) => s.type)).toEqual([...EVENT_TYPES]);
    expect(doc.common).toEqual(['seq', 'ts', 'runId', 'type', 'nodeId', 'round']);
  });

  it('each example is one JSON line of its type with the common fields and only documented fields', () => {
    for (const section of doc.sections) {
      const { example, fields, type } = section;
      expect(example.type, type).toBe(type);
      for (const key of BASE) expect(example, `${type} example`).toHaveProperty(key);
      const own = Object.keys(example).filter((k) => !BASE.includes(k));
      expect(
        own.filter((k) => !fields.has(k)),
        `${type}: example fields not documented`,
      ).toEqual([]);
      const required = [...fields].filter(([, f]) => !f.optional).map(([k]) => k);
      expect(
        required.filter((k) => !(k in example)),
        `${type}: required fields missing in the example`,
      ).toEqual([]);
    }
  });

  it('the scenario produces every event type', () => {
    expect(
      EVENT_TYPES.filter((t) => !PRODUCED_ELSEWHERE.has(t) && !events.some((e) => e.type === t)),
    ).toEqual([]);
  });

  it('real events carry exactly the documented fields of their type', () => {
    for (const section of doc.sections) {
      if (PRODUCED_ELSEWHERE.has(section.type)) continue;
      const real = events.filter((e) => e.type === section.type);
      const seen = new Set<string>();
      for (const event of real) {
        const own = Object.keys(event).filter((k) => !BASE.includes(k));
        own.forEach((k) => seen.add(k));
        expect(
          own.filter((k) => !section.fields.has(k)),
          `${section.type}: undocumented fields in ${JSON.stringify(event)}`,
        ).toEqual([]);
        const missing = [...section.fields].filter(([k, f]) => !f.optional && !(k in event)).map(([k]) => k);
        expect(missing, `${section.type}: documented fields missing in ${JSON.stringify(event)}`).toEqual([]);
      }
      const neverSeen = [...section.fields.keys()].filter(
        (k) => !seen.has(k) && !NOT_PRODUCED_HERE.has(`${section.type}.${k}`),
      );
      expect(neverSeen, `${section.type}: documented fields no real event has`).toEqual([]);
    }
  });

  it('seq is 1, 2, 3, … per run', () => {
    const byRun = new Map<string, number[]>();
    for (const e of events) byRun.set(e.runId, [...(byRun.get(e.runId) ?? []), e.seq]);
    for (const seqs of byRun.values()) expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });
});
