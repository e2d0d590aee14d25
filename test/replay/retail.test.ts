import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFlow, type LoadedFlow } from '../../src/flow/load.js';
import { scriptedModel, type ScriptedTurn } from '../../src/model/scripted.js';
import { createRuntime } from '../../src/runtime/create.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { StoredEvent } from '../../src/store/store.js';
import {
  FIXTURE,
  loadDb,
  loadTasks,
  retailFlow,
  turnsOf,
  userWords,
  WRITES,
  type GoldAction,
  withImpliedLookups,
  type RetailTask,
} from './retail-replay.js';

// τ²-bench's 114 retail tasks replayed through the runtime: its tools behind an MCP server (a real
// child process), its gold action lists as the scripted model, the user's words as the run input, and
// the parameter contracts a careful operator writes. Every legitimate trajectory must go through with
// each write gated, approved and executed once; a swapped order id or an invented payment id must be
// REJECTED before it reaches the server.

let dir: string;
let control: string;
let runtime: Runtime;
let flow: LoadedFlow;
const tasks = loadTasks();
const db = loadDb();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tau2-retail-'));
  control = join(dir, 'task');
  writeFileSync(control, '');
  runtime = createRuntime({ store: 'memory', logger: false });
  const server = {
    command: 'node',
    args: [join(FIXTURE, 'server.mjs')],
    env: { RETAIL_CONTROL: control, RETAIL_DB: join(FIXTURE, 'db.json') },
  };
  flow = await loadFlow(retailFlow(server), { baseDir: FIXTURE });
});

afterAll(async () => {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

/** The writes that reached the server while `runKey` was the current task. */
function writesOf(runKey: string): { tool: string; args: unknown }[] {
  const file = `${control}.writes`;
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { task: string; tool: string; args: unknown })
    .filter((w) => w.task === runKey);
}

/** Runs one scripted trajectory from a fresh database, approving every write it asks for. */
async function replay(runKey: string, task: RetailTask, turns: ScriptedTurn[]) {
  writeFileSync(control, runKey);
  const model = scriptedModel({ turns });
  let summary = await runtime.start(flow, { input: { text: userWords(task) }, model });
  for (let approvals = 0; summary.status === 'suspended' && approvals < 20; approvals += 1)
    summary = await runtime.approve(summary.runId, { comment: 'yes' });
  const calls: StoredEvent[] = [];
  for await (const event of runtime.events(summary.runId)) {
    if (event.type === 'tool.invoked') calls.push(event);
    if (['run.completed', 'run.failed', 'run.cancelled'].includes(event.type)) break;
  }
  return { summary, calls };
}

const problem = (e: StoredEvent) => `${String(e.tool)} ${String(e.errorCode)}: ${String(e.message)}`;

describe('τ²-bench retail: gold trajectories with careful contracts', () => {
  it('all 114 go through: every write gated, approved and executed exactly once, no other rejection', async () => {
    expect(tasks).toHaveLength(114);
    const failures: string[] = [];
    let inserted = 0;
    for (const task of tasks) {
      const implied = withImpliedLookups(task, db);
      inserted += implied.inserted;
      const { summary, calls } = await replay(`gold-${task.id}`, task, turnsOf(implied.actions));
      const gold = task.actions.filter((a) => WRITES.has(a.name));
      // A gold action may fail: τ²-bench's lists keep lookups of ids that do not exist and writes its
      // environment refuses (task 105: the gift card balance is too low) — those are FAILED
      // MCP_TOOL_ERROR here too. A rejection by the runtime or another deferral is a failure.
      const refused = calls.filter(
        (e) =>
          e.outcome === 'REJECTED' ||
          (e.outcome === 'FAILED' && WRITES.has(String(e.tool)) && e.errorCode !== 'MCP_TOOL_ERROR') ||
          (e.outcome === 'DEFERRED' && e.errorCode !== 'APPROVAL_REQUIRED'),
      );
      const executed = calls.filter((e) => WRITES.has(String(e.tool)) && e.executed === true);
      const sent = writesOf(`gold-${task.id}`);
      if (
        summary.status !== 'completed' ||
        refused.length > 0 ||
        executed.length !== gold.length ||
        sent.length !== gold.length
      )
        failures.push(
          `task ${task.id}: ${summary.status} ${summary.message ?? ''} executed ${executed.length}, sent ${sent.length} of ${gold.length}; ${refused.map(problem).join(' | ')}`,
        );
      if (JSON.stringify(sent.map((w) => w.args)) !== JSON.stringify(gold.map((a) => a.arguments)))
        failures.push(`task ${task.id}: the server got other writes than the gold ones`);
    }
    expect(failures).toEqual([]);
    // How many lookups the gold lists leave out (see withImpliedLookups); kept in view, not hidden.
    expect(inserted).toBe(194);
  });

  /** The actions before the first write of `task`, and that write. */
  function firstWrite(task: RetailTask): [GoldAction[], GoldAction] | null {
    const { actions } = withImpliedLookups(task, db);
    const at = actions.findIndex((a) => WRITES.has(a.name));
    return at < 0 ? null : [actions.slice(0, at), actions[at] as GoldAction];
  }

  async function refusedBeforeItRuns(
    runKey: string,
    task: RetailTask,
    prefix: GoldAction[],
    write: GoldAction,
  ) {
    const turns = turnsOf(prefix).slice(0, -1);
    turns.push({ calls: [{ tool: write.name, args: write.arguments }] });
    turns.push({ calls: [{ tool: 'builtin_node_fail', args: { reason: 'refused' } }] });
    const { calls } = await replay(runKey, task, turns);
    expect(writesOf(runKey)).toEqual([]);
    return calls.find((e) => e.tool === write.name);
  }

  it('a swapped order id (another customer’s order) is REJECTED before it runs, in every task that writes an order', async () => {
    let checked = 0;
    for (const task of tasks) {
      const found = firstWrite(task);
      if (!found || typeof found[1].arguments.order_id !== 'string') continue;
      const [prefix, write] = found;
      const own = new Set(
        task.actions
          .flatMap((a) => Object.values(a.arguments))
          .filter((v): v is string => typeof v === 'string'),
      );
      const owners = new Set(
        task.actions.flatMap((a) => {
          const id = a.arguments.order_id;
          return typeof id === 'string' && db.orders[id] ? [db.orders[id].user_id] : [];
        }),
      );
      const words = userWords(task);
      const other = Object.entries(db.orders).find(
        ([id, o]) => !own.has(id) && !owners.has(o.user_id) && !words.includes(id.slice(1)),
      )?.[0] as string;
      const swapped = { ...write, arguments: { ...write.arguments, order_id: other } };
      const call = await refusedBeforeItRuns(`swap-${task.id}`, task, prefix, swapped);
      expect(call, `task ${task.id}`).toMatchObject({ outcome: 'REJECTED', executed: false });
      expect(['PARAM_PROVENANCE_MISMATCH', 'PARAM_PROVENANCE_QUERY_FIRST']).toContain(call?.errorCode);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(90);
  });

  it('an invented payment id is REJECTED before it runs, and the next step offers the customer’s payment ids', async () => {
    let checked = 0;
    for (const task of tasks) {
      const found = firstWrite(task);
      if (!found || typeof found[1].arguments.payment_method_id !== 'string') continue;
      const [prefix, write] = found;
      const invented = {
        ...write,
        arguments: { ...write.arguments, payment_method_id: 'credit_card_0000000' },
      };
      const call = await refusedBeforeItRuns(`pay-${task.id}`, task, prefix, invented);
      expect(call, `task ${task.id}`).toMatchObject({
        outcome: 'REJECTED',
        errorCode: 'PARAM_PROVENANCE_MISMATCH',
        executed: false,
      });
      // Values of the same kind only: payment ids, never order or item ids.
      expect(String(call?.message)).toMatch(
        /for example: (?:(?:credit_card|gift_card|paypal)_\d+(?:, )?)+\.$/u,
      );
      checked += 1;
    }
    expect(checked).toBeGreaterThan(50);
  });
});
