import { isDeepStrictEqual } from 'node:util';
import { fingerprint } from '../../../src/domain/fingerprint.js';
import { idempotencyKey } from '../../../src/tools/guards/keys.js';
import {
  MODEL_QUESTION,
  RECOVERY_ANSWER,
  VERSION_ANSWER,
  type TraceEvent,
  type World,
  type WriteEntry,
} from './world.js';

/** The flow's writes and what each must have done once the run completed. */
export const WRITES = {
  web_site_create: { spaceId: 's1', name: '官网' },
  web_site_publish: { siteId: 'site_1', version: VERSION_ANSWER },
  notify_send: { channel: 'ops', text: '站点 官网 已发布 v2' },
} as const;
export type WriteTool = keyof typeof WRITES;
const WRITE_TOOLS = Object.keys(WRITES) as WriteTool[];

/**
 * How one interrupted write was settled after a takeover, read from the trace:
 * `re-sent` (idempotent), `found` / `not-found` / `look-back-failed` (recover), `unknown` (neither),
 * or `none` (the takeover found no write in flight).
 */
export type Branch = 're-sent' | 'found' | 'not-found' | 'look-back-failed' | 'unknown' | 'none';

/** How often each write may have been executed: exactly n, or at most once (a write whose result was unknown). */
export type Times = 0 | 1 | 'at-most-once';

/** What a completed run is checked against. */
export interface RunReport {
  branches: { branch: Branch; tool: string | null }[];
  events: TraceEvent[];
  writes: WriteEntry[];
}

/** Fails with a message naming the check. */
function check(ok: boolean, what: string, detail?: unknown): void {
  if (!ok) throw new Error(`${what}${detail === undefined ? '' : `: ${JSON.stringify(detail)}`}`);
}

/**
 * The guarantees of the HTTP API on a run that has completed:
 * - the run completed, and its trace is gap-free (seq 1..n, one run.started, run.completed last);
 * - every write the server executed carries the key derived from run id and fingerprint, and was
 *   approved by a person for exactly those arguments; create and publish ran exactly once (publish:
 *   one effect, the server deduplicates a re-send); notify_send as `times.notify_send` says, and it
 *   may be missing only when the run told the person that its result was unknown;
 * - each write asked for approval once and every approval was granted once; the model's question was
 *   answered once with "v2" (which publish carries, `source: user`); each runtime question about an
 *   unknown write was answered and reached the model as a user message.
 */
export function checkRun(
  world: World,
  runId: string,
  options: { times?: Partial<Record<WriteTool, Times>>; interrupted?: readonly string[] } = {},
): RunReport {
  const row = world.row(runId);
  check(row.status === 'completed', `run ${row.status}, not completed`, {
    reason: row.reason,
    message: row.message,
  });
  check(isDeepStrictEqual(row.outputs, { build: {}, announce: {} }), 'outputs', row.outputs);
  const events = world.events(runId);
  check(
    events.every((e, i) => e.seq === i + 1),
    'trace seq not 1..n',
    events.map((e) => e.seq),
  );
  check(events.filter((e) => e.type === 'run.started').length === 1, 'run.started not exactly once');
  check(events.at(-1)?.type === 'run.completed', 'last event', events.at(-1)?.type);
  const writes = world.writes();
  checkWrites(runId, writes, events, options.times ?? {});
  checkPeople(world, runId, events);
  return { branches: branches(events, new Set(options.interrupted ?? [])), events, writes };
}

function checkWrites(
  runId: string,
  writes: WriteEntry[],
  events: TraceEvent[],
  times: Partial<Record<WriteTool, Times>>,
): void {
  const approved = approvedPendings(events);
  for (const w of writes) {
    check(WRITE_TOOLS.includes(w.tool as WriteTool), 'unexpected write', w.tool);
    check(
      w.idempotencyKey === idempotencyKey(runId, fingerprint(w.tool, w.args)),
      'idempotency key not derived from run id + fingerprint',
      w,
    );
    check(
      approved.some((p) => p.tool === w.tool && isDeepStrictEqual(p.args, w.args)),
      'a write ran without an approval for exactly its arguments',
      w,
    );
  }
  const unknown = new Set(
    events
      .filter((e) => e.type === 'tool.invoked' && e.errorCode === 'WRITE_RESULT_UNKNOWN')
      .map((e) => String(e.tool)),
  );
  for (const tool of WRITE_TOOLS) {
    const ran = writes.filter((w) => w.tool === tool);
    check(
      ran.every((w) => isDeepStrictEqual(w.args, WRITES[tool])),
      `${tool} ran with other arguments`,
      ran,
    );
    const expected = times[tool] ?? 1;
    if (expected === 'at-most-once') {
      check(ran.length <= 1, `${tool} executed ${ran.length} times`);
      check(
        ran.length === 1 || unknown.has(tool),
        `${tool} never executed and the person was not told its result is unknown`,
      );
    } else {
      check(ran.length === expected, `${tool} executed ${ran.length} times, expected ${expected}`);
    }
  }
}

/** The (tool, args) of every approval a person granted. */
function approvedPendings(events: TraceEvent[]): { tool: string; args: unknown }[] {
  const out: { tool: string; args: unknown }[] = [];
  let pending: { tool: string; args: unknown } | null = null;
  for (const e of events) {
    if (e.type === 'run.suspended' && e.kind === 'APPROVAL')
      pending = e.pending as { tool: string; args: unknown };
    if (e.type === 'run.resumed' && e.kind === 'APPROVAL' && e.decision === 'approved' && pending)
      out.push(pending);
  }
  return out;
}

function checkPeople(world: World, runId: string, events: TraceEvent[]): void {
  const asked = events
    .filter((e) => e.type === 'run.suspended' && e.kind === 'APPROVAL')
    .map((e) => (e.pending as { tool: string }).tool);
  check(
    isDeepStrictEqual([...asked].sort(), [...WRITE_TOOLS].sort()),
    'approvals asked (once per write)',
    asked,
  );
  const decisions = events.filter((e) => e.type === 'run.resumed' && e.kind === 'APPROVAL');
  check(
    decisions.length === 3 && decisions.every((e) => e.decision === 'approved'),
    'approvals granted once each',
    decisions,
  );
  const questions = events
    .filter((e) => e.type === 'run.suspended' && e.kind === 'FOLLOW_UP')
    .map((e) => (e.pending as { question: string }).question);
  const answers = events
    .filter((e) => e.type === 'run.resumed' && e.kind === 'FOLLOW_UP')
    .map((e) => String(e.answer));
  const runtimeQuestions = questions.filter((q) => q !== MODEL_QUESTION);
  check(
    questions.filter((q) => q === MODEL_QUESTION).length === 1,
    "the model's question asked once",
    questions,
  );
  check(answers.filter((a) => a === VERSION_ANSWER).length === 1, 'answered v2 once', answers);
  const unknown = events.filter((e) => e.type === 'tool.invoked' && e.errorCode === 'WRITE_RESULT_UNKNOWN');
  check(runtimeQuestions.length === unknown.length, 'one runtime question per unknown write', {
    runtimeQuestions,
    unknown: unknown.length,
  });
  check(
    answers.filter((a) => a === RECOVERY_ANSWER).length === runtimeQuestions.length,
    'every runtime question answered once',
    answers,
  );
  const userTexts = world
    .messages(runId)
    .filter((m) => m.role === 'user')
    .map((m) => m.content);
  const delivered = userTexts.filter((t) => t === RECOVERY_ANSWER).length;
  check(
    delivered === runtimeQuestions.length,
    'the answers to runtime questions reach the model as user messages',
    userTexts,
  );
}

/**
 * How each takeover (run.resumed RECOVERY) settled the write it found in flight. `interrupted` names
 * the tools that were in flight when a resume started: a re-send looks like any approved send in the
 * trace, so it only counts as one for those.
 */
export function branches(
  events: TraceEvent[],
  interrupted: ReadonlySet<string>,
): { branch: Branch; tool: string | null }[] {
  const out: { branch: Branch; tool: string | null }[] = [];
  events.forEach((event, i) => {
    if (event.type !== 'run.resumed' || event.kind !== 'RECOVERY') return;
    const end = events.findIndex(
      (e, j) => j > i && (e.type === 'model.response' || e.type === 'run.resumed'),
    );
    const segment = events.slice(i + 1, end < 0 ? undefined : end);
    const lookedBack = segment.some((e) => e.type === 'tool.invoked' && e.lookBack === true);
    const write = segment.find(
      (e) => e.type === 'tool.invoked' && e.lookBack !== true && WRITE_TOOLS.includes(e.tool as WriteTool),
    );
    const settled = write && interrupted.has(String(write.tool)) ? write : undefined;
    out.push({ branch: classify(settled, lookedBack), tool: settled ? String(settled.tool) : null });
  });
  return out;
}

function classify(write: TraceEvent | undefined, lookedBack: boolean): Branch {
  if (!write) return 'none';
  if (lookedBack) {
    if (write.outcome === 'SUCCESS') return 'found';
    if (write.errorCode === 'WRITE_NOT_EXECUTED') return 'not-found';
    if (write.errorCode === 'WRITE_RESULT_UNKNOWN') return 'look-back-failed';
    throw new Error(`look-back ended in ${String(write.outcome)} ${String(write.errorCode)}`);
  }
  if (write.errorCode === 'WRITE_RESULT_UNKNOWN') return 'unknown';
  if (write.executed === true) return 're-sent';
  throw new Error(
    `takeover of ${String(write.tool)} ended in ${String(write.outcome)} ${String(write.errorCode)}`,
  );
}
