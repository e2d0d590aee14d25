import { createHash } from 'node:crypto';
import type { Logger } from '../log/logger.js';
import type { ElicitationPending } from '../records/pending.js';
import type { ElicitationAnswer } from '../records/run-state.js';
import type { HeldQuestion } from '../records/state-doc.js';
import { isVersionConflict, type RunRecord, type Store } from '../store/store.js';
import { runConflict } from '../domain/run-error.js';
import { summarize, type RunSummary } from '../records/summary.js';
import { answerText, elicitationAnswer, type ElicitationAction } from './elicit-answer.js';
import { pause, type Clock } from './seams.js';
import type { RunSession } from './session.js';

/**
 * Holding a server's request open (docs/mcp.md, "Holding the request open"): when an MCP server asks
 * the person something during a call and the server's entry has `elicitation.holdSeconds`, the driver
 * writes the question into the run (`state.held`) and keeps the server's request open while it looks
 * at the store for an answer. Any process may answer it meanwhile (`answerHeld`: the CLI's `answer`,
 * the HTTP API, the console); the driver adopts that answer at its next commit, records it once as a
 * follow-up already given to the server, and replies to the server in the same request. With no
 * answer by the end of the hold it clears the question and the call falls back to cancel + suspend.
 */

/** How often the driver and an answering process look at the stored run (ms). */
export const HELD_POLL_MS = 200;

/** What holding one question needs. */
export interface HoldRequest {
  readonly nodeId: string;
  readonly elicitation: ElicitationPending;
  readonly holdMs: number;
  /** Stops the hold early (the run is cancelled or the call ended). */
  readonly signal?: AbortSignal;
}

/** The id of a held question: `hld_` and 16 hex digits of the run, the call and when it was asked. */
function heldId(runId: string, elicitation: ElicitationPending, at: number): string {
  const digest = createHash('sha256')
    .update(`${runId}\n${elicitation.fingerprint}\n${elicitation.message}\n${at}`)
    .digest('hex');
  return `hld_${digest.slice(0, 16)}`;
}

/**
 * Holds one question for up to `holdMs`: the person's answer given meanwhile (recorded as a follow-up,
 * used, traced `mcp.answered`), or null when nobody answered (the caller cancels the call and the run
 * suspends with the question as without a hold).
 */
export async function holdQuestion(
  session: RunSession,
  request: HoldRequest,
  logger: Logger,
  pollMs = HELD_POLL_MS,
): Promise<ElicitationAnswer | null> {
  const start = session.clock();
  const id = heldId(session.runId, request.elicitation, start);
  const until = start + request.holdMs;
  session.setHeld({ id, nodeId: request.nodeId, until, elicitation: request.elicitation });
  const { server, tool, message } = request.elicitation;
  const at = new Date(until).toISOString();
  session.emit({ type: 'mcp.held', nodeId: request.nodeId, server, tool, question: message, id, until: at });
  try {
    await session.checkpoint();
  } catch (error) {
    session.setHeld(undefined);
    logger.warn('MCP question not held: the run could not be written', { runId: session.runId, error });
    return null;
  }
  logger.info('MCP question held open for an answer', {
    runId: session.runId,
    server: request.elicitation.server,
    tool: request.elicitation.tool,
    question: request.elicitation.message,
    seconds: Math.round(request.holdMs / 1000),
    answer: `agent-runtime answer ${session.runId} TEXT (or --decline, --cancel)`,
  });
  await waitForAnswer(session, id, until, request.signal, pollMs);
  return release(session, id, logger);
}

async function waitForAnswer(
  session: RunSession,
  id: string,
  until: number,
  signal: AbortSignal | undefined,
  pollMs: number,
): Promise<void> {
  while (session.clock() < until && signal?.aborted !== true) {
    await pause(Math.max(1, Math.min(pollMs, until - session.clock())));
    const fresh = await session.stored().catch(() => undefined);
    if (fresh === undefined) continue;
    if (fresh === null || fresh.status !== 'running' || fresh.state.cancelRequested === true) return;
    if (fresh.state.held?.id === id && fresh.state.held.answer) return;
  }
}

/** Ends the hold in the run: adopts an answer given meanwhile and records it once. */
async function release(session: RunSession, id: string, logger: Logger): Promise<ElicitationAnswer | null> {
  try {
    await session.checkpoint(); // a commit adopts an answer another process wrote meanwhile
  } catch (error) {
    logger.warn('MCP held question: the run could not be written', { runId: session.runId, error });
  }
  const held = session.held;
  session.setHeld(undefined);
  const answer = held?.id === id ? held.answer : undefined;
  if (held && answer) {
    const { who, ...given } = answer;
    const text = answerText(given);
    session.run.followUps.push({
      question: held.elicitation.message,
      options: null,
      answer: text,
      nodeId: held.nodeId,
      elicitation: { ...given, used: true },
    });
    session.emit({
      type: 'mcp.answered',
      nodeId: held.nodeId,
      server: given.server,
      tool: given.tool,
      question: held.elicitation.message,
      action: given.action,
      answer: text,
      who,
    });
  }
  try {
    await session.checkpoint();
  } catch (error) {
    logger.warn('MCP held question: the run could not be written', { runId: session.runId, error });
  }
  if (!answer) return null;
  const { who: _who, ...given } = answer;
  return given;
}

/** What answering a held question needs from the engine. */
export interface HeldHost {
  read(runId: string): Promise<RunRecord>;
  commit(record: RunRecord, held: HeldQuestion): Promise<RunRecord>;
  clock: Clock;
  pollMs?: number;
}

/** The host of `answerHeld` over an engine's store (structural: the engine is not imported here). */
export function heldHost(engine: {
  db(): Promise<Store>;
  require(runId: string): Promise<RunRecord>;
  readonly clock: Clock;
}): HeldHost {
  return {
    read: (runId) => engine.require(runId),
    commit: async (record, held) =>
      (await engine.db()).commit({
        runId: record.runId,
        expectedVersion: record.version,
        patch: { state: { ...record.state, held } },
      }),
    clock: engine.clock,
  };
}

/** True when the stored run holds a question open that an answer can still reach. */
export function holdsQuestion(record: RunRecord, now: number): boolean {
  const held = record.state.held;
  return record.status === 'running' && held !== undefined && !held.answer && held.until > now;
}

/**
 * A person's answer to a question a driver holds open (any process): checked against the requested
 * schema (RunError REQUEST_INVALID), written into the run, and waited for until the driver gave it to
 * the server (or the hold ended). Returns the run as it stands then. RunError RUN_CONFLICT when the
 * question is no longer held (answered already, or the hold ended: the run then suspends with it).
 */
export async function answerHeld(
  host: HeldHost,
  runId: string,
  response: { answer: string; who: string | null; action?: ElicitationAction; expect?: string },
): Promise<RunSummary> {
  for (;;) {
    const record = await host.read(runId);
    const held = record.state.held;
    if (!held || !holdsQuestion(record, host.clock())) {
      throw runConflict(runId, `run ${runId} is ${record.status}; no question of it waits for an answer now`);
    }
    if (response.expect !== undefined && response.expect !== held.id) {
      throw runConflict(runId, `run ${runId} waits for held question ${held.id}, not for ${response.expect}`);
    }
    const given = elicitationAnswer(runId, held.elicitation, response.action ?? 'accept', response.answer);
    try {
      await host.commit(record, { ...held, answer: { ...given, who: response.who } });
    } catch (error) {
      if (isVersionConflict(error)) continue; // the driver renewed its lease meanwhile: look again
      throw error;
    }
    return summarize(await taken(host, runId, held));
  }
}

/**
 * `answerHeld` when the stored run holds a question open now, else null (the response is for a
 * suspended run, or refused as usual). `onAccepted` is told the summary it returns.
 */
export async function answerIfHeld(
  host: HeldHost,
  runId: string,
  response: { answer: string; who: string | null; action?: ElicitationAction },
  options: { expect?: string; onAccepted?: (summary: RunSummary) => void },
): Promise<RunSummary | null> {
  if (!holdsQuestion(await host.read(runId), host.clock())) return null;
  const summary = await answerHeld(host, runId, { ...response, expect: options.expect });
  options.onAccepted?.(summary);
  return summary;
}

/** The run once its driver took the answer (the question is no longer held), or at the hold's end. */
async function taken(host: HeldHost, runId: string, held: HeldQuestion): Promise<RunRecord> {
  const deadline = held.until + 5_000;
  for (;;) {
    const record = await host.read(runId);
    if (record.state.held?.id !== held.id || host.clock() > deadline) return record;
    await pause(host.pollMs ?? HELD_POLL_MS);
  }
}
