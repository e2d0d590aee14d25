import type { StoredEvent } from '../store/store.js';
import type { RunSummary } from '../records/summary.js';
import type { ModelDeltaEvent } from '../trace/live.js';
import type { ProgressWriter } from './progress.js';
import { oneLine, shellWord, table } from './text.js';
import { visible, visibleDeep } from './visible.js';

const COLORS = { SUCCESS: 32, FAILED: 31, REJECTED: 33, DEFERRED: 36, dim: 2, bold: 1 } as const;

/**
 * Turns trace events into readable lines for a terminal (outcome words always shown, colour optional),
 * and shows a streaming model's text live, on a line of its own (`  model ✎ …`), as it is written.
 * Every text from the run (tool payloads, model text, reasons, flow fields) is printed with its
 * control characters made visible (src/cli/visible.ts).
 */
export class TraceRenderer {
  constructor(
    private readonly out: ProgressWriter,
    private readonly color: boolean,
    private readonly animate: boolean,
  ) {}

  /** Renders one event (a sink for the runtime's `onEvent`). */
  readonly onEvent = (event: StoredEvent): void => {
    if (event.type === 'node.started') this.node = `${event.runId} ${String(event.nodeId)}`;
    // A flow with parallel branches or maps numbers its node runs: from then on each line is labelled.
    if (event.type === 'node.started' && typeof event.nodeRun === 'number') this.labelled = true;
    const early = this.ahead.delete(aheadKey(event));
    const text = early ? null : this.line(visibleDeep(event), streamKey(event));
    const line = text === null ? null : this.label(text, event);
    const at = Date.parse(event.ts);
    const when = Number.isNaN(at) ? undefined : at;
    // A call's own log line (logged just before its event) follows the call's progress line.
    const call = event.type === 'tool.invoked' && when !== undefined;
    if (line !== null) this.out.lines(`${line}\n`, call ? Number.NEGATIVE_INFINITY : when);
    if (call) this.out.settle(at);
    if (event.type === 'react.round' && this.animate)
      this.out.startSpinner(this.paint('dim', 'model is thinking…'));
  };

  /** Shows a streaming model's text so far (a sink for `Runtime.deltas`); only the new part is written. */
  readonly onDelta = (delta: ModelDeltaEvent): void => {
    const key = streamKey(delta);
    const shown = this.streamed.get(key) ?? '';
    if (delta.text === shown || delta.text === '') return;
    const fresh = delta.text.startsWith(shown) ? delta.text.slice(shown.length) : delta.text;
    if (!this.streamed.has(key)) this.headings(delta);
    this.streamed.set(key, delta.text);
    this.out.stream(key, this.paint('dim', '  model ✎ '), visible(fresh));
  };

  /** True once the run is seen to have parallel branches or maps (its lines then name their node). */
  private labelled = false;

  /**
   * In a flow with parallel branches or maps, every line of a node's event starts with its node id
   * and, for a map item, the item's index (`[price item 2] `), so that interleaved lines stay readable.
   */
  private label(text: string, event: StoredEvent): string {
    if (!this.labelled || typeof event.nodeId !== 'string') return text;
    const item = event.item as { index?: unknown } | undefined;
    const index = typeof item?.index === 'number' ? ` item ${item.index}` : '';
    const tag = this.paint('dim', `[${visible(event.nodeId)}${index}]`);
    return text
      .split('\n')
      .map((l) => `${tag} ${l}`)
      .join('\n');
  }

  /** The text each model call streamed so far, by stream key (dropped once its response is shown). */
  private readonly streamed = new Map<string, string>();
  /** The node whose heading was printed last (`runId nodeId`). */
  private node = '';
  /** Headings printed ahead of their events (a stream starts before its round is committed). */
  private readonly ahead = new Set<string>();

  /**
   * A model call streams before the events of its round are committed (they come with the call's
   * result): its node and round headings are printed first, and their events later print nothing.
   */
  private headings(delta: ModelDeltaEvent): void {
    const node = `${delta.runId} ${delta.nodeId}`;
    if (this.node !== node) {
      this.node = node;
      this.ahead.add(`node.started ${node}`);
      this.out.lines(`${this.paint('bold', `● node ${visible(delta.nodeId)}`)}\n`);
    }
    if (delta.round === null) return;
    this.ahead.add(`react.round ${streamKey(delta)}`);
    this.out.lines(`${this.paint('dim', `  round ${delta.round}`)}\n`);
  }

  /** Stops the spinner (call before printing anything else). */
  stopSpinner(): void {
    this.out.stopSpinner();
  }

  private paint(kind: keyof typeof COLORS, text: string): string {
    return this.color ? `\x1b[${COLORS[kind]}m${text}\x1b[0m` : text;
  }

  private line(e: StoredEvent, key: string): string | null {
    const f = e as Record<string, unknown>;
    switch (e.type) {
      case 'run.started':
        return this.paint('bold', `▶ run ${e.runId} (flow ${String(f.flowId)} v${String(f.flowVersion)})`);
      case 'node.started':
        return this.paint('bold', `● node ${String(e.nodeId)}`);
      case 'react.round':
        return this.paint('dim', `  round ${String(e.round)}`);
      case 'model.response': {
        const calls = (f.toolCalls as { tool: string }[]).map((c) => c.tool).join(', ');
        const streamed = this.streamed.delete(key);
        const text = typeof f.text === 'string' && f.text && !streamed ? ` “${truncate(f.text, 100)}”` : '';
        return `  model → ${calls || '(no tool call)'}${text}`;
      }
      case 'tool.progress': {
        const total = typeof f.total === 'number' ? `/${String(f.total)}` : '';
        const message = typeof f.message === 'string' ? ` ${f.message}` : '';
        return this.paint('dim', `    … ${String(f.tool)} ${String(f.progress)}${total}${message}`);
      }
      case 'tool.invoked':
        return this.toolLine(f);
      case 'tool.skipped':
        return this.paint('dim', `    ↷ SKIPPED ${String(f.tool)} (not executed)`);
      case 'react.stall':
        return this.paint('dim', `    stall ${String(f.stalls)}/${String(f.maxStalls)}`);
      case 'react.no_tool_calls':
        return this.paint('dim', `    no tool call`);
      case 'phase.hint':
        return this.paint('dim', `    hint: ${String(f.text)}`);
      case 'context.compacted':
        return this.paint(
          'dim',
          `    context compacted: ~${String(f.before)} → ~${String(f.after)} tokens (budget ${String(f.budget)})`,
        );
      case 'run.suspended':
        return this.paint('bold', `⏸ waiting for ${waitingFor(f)}`);
      case 'run.resumed':
        return this.paint(
          'bold',
          `▶ resumed (${[f.kind, f.decision, f.answer].filter(Boolean).map(String).join(', ')})`,
        );
      case 'run.retried':
        return this.paint('bold', `↻ retried in node ${String(e.nodeId)} (after ${String(f.reason)})`);
      case 'node.completed':
        return (
          this.paint('SUCCESS', `● node ${String(e.nodeId)} completed`) + ` ${JSON.stringify(f.outputs)}`
        );
      case 'node.failed':
        return this.paint(
          'FAILED',
          `● node ${String(e.nodeId)} failed: ${String(f.reason)} ${String(f.message)}`,
        );
      case 'run.completed':
        return this.paint('SUCCESS', `✔ run completed`);
      case 'run.failed':
        return this.paint('FAILED', `✖ run failed: ${String(f.reason)} — ${String(f.message)}`);
      case 'run.cancelled':
        return this.paint('FAILED', `✖ run cancelled`);
      default:
        return null;
    }
  }

  private toolLine(f: Record<string, unknown>): string {
    const outcome = String(f.outcome) as 'SUCCESS' | 'FAILED' | 'REJECTED' | 'DEFERRED';
    const mark = { SUCCESS: '✔', FAILED: '✖', REJECTED: '⊘', DEFERRED: '⏸' }[outcome] ?? '?';
    const head = this.paint(outcome, `${mark} ${outcome}`);
    const code = typeof f.errorCode === 'string' ? ` ${f.errorCode}` : '';
    const ev = typeof f.evidenceId === 'string' ? ` [${f.evidenceId}]` : '';
    const lookBack = f.lookBack ? ' (look-back)' : '';
    const args = truncate(JSON.stringify(f.args), 120);
    const message = outcome === 'SUCCESS' ? '' : `\n      ${String(f.message)}`;
    const result =
      'result' in f
        ? `\n      ${this.paint('dim', resultPreview(f.result, f.resultTruncated === true))}`
        : '';
    return `    ${head} ${String(f.tool)}${lookBack} ${this.paint('dim', args)}${code}${ev}${message}${result}`;
  }
}

/** One line for a traced tool result: `→ ` and the value on one line, marked when the trace holds only its beginning. */
export function resultPreview(result: unknown, truncated: boolean): string {
  return `→ ${oneLine(result, 120)}${truncated ? ' (cut in the trace; the evidence has it all)' : ''}`;
}

/**
 * The lines for a run whose parallel branches wait on several items at once: each item with its node
 * and pending id, answered on its own with `--expect ID` (the run goes on once all are answered).
 */
function waitingItemLines(
  summary: RunSummary,
  items: NonNullable<NonNullable<RunSummary['suspension']>['items']>,
  flags: string,
  command: string,
): string[] {
  const lines = [`waiting on ${items.length} items of parallel branches; answer each by its id:`];
  for (const item of items) {
    const pending = item.pending as Record<string, unknown>;
    const id = typeof pending.id === 'string' ? pending.id : '?';
    if (item.kind === 'APPROVAL') {
      lines.push(`- ${item.nodeId}: approval of ${String(pending.tool)} ${JSON.stringify(pending.args)}`);
      lines.push(`  continue with: ${command} approve ${summary.runId} --expect ${id}${flags}`);
    } else {
      lines.push(`- ${item.nodeId}: question: ${String(pending.question)}`);
      lines.push(`  continue with: ${command} answer ${summary.runId} TEXT --expect ${id}${flags}`);
    }
  }
  return lines;
}

/**
 * The closing lines for a summary: what happened and, when suspended or failed for want of a working
 * model, how to continue. `flags` (e.g. ` --db sqlite:x.db`) is added to every printed command and
 * `command` starts it (`npx agent-runtime` for a local install), so that it works as printed.
 * `flowFile`, when the command knows it (`run FLOW`), stands for the flow in an `mcp login` it prints.
 */
export function describeSummary(
  given: RunSummary,
  flags = '',
  command = 'agent-runtime',
  flowFile?: string,
): string {
  const summary = visibleDeep(given);
  const lines = [`run ${summary.runId}: ${summary.status}`];
  if (summary.status === 'suspended' && summary.suspension?.items) {
    lines.push(...waitingItemLines(summary, summary.suspension.items, flags, command));
  } else if (summary.status === 'suspended' && summary.suspension) {
    const pending = summary.suspension.pending as Record<string, unknown>;
    if (summary.suspension.kind === 'APPROVAL') {
      lines.push(`waiting for approval of ${String(pending.tool)} ${JSON.stringify(pending.args)}`);
      if (typeof pending.summary === 'string' && pending.summary) lines.push(`summary: ${pending.summary}`);
      lines.push(...approverLines(pending));
      lines.push(
        `continue with: ${command} approve ${summary.runId}${flags}   (or: ${command} reject ${summary.runId}${flags} --comment TEXT)`,
      );
    } else if (summary.suspension.kind === 'TASK') {
      lines.push(`waiting for: ${taskText(pending.task)}`);
      lines.push(
        `continue with: ${command} resume ${summary.runId}${flags}   (serve and workers go on by themselves)`,
      );
    } else if (isAuthorization(pending.authorization)) {
      lines.push(...authorizationLines(summary, pending.authorization, flags, command, flowFile));
    } else {
      lines.push(`waiting for an answer: ${String(pending.question)}`);
      if (Array.isArray(pending.options) && pending.options.length)
        lines.push(`options: ${pending.options.join(' / ')}`);
      lines.push(`continue with: ${command} answer ${summary.runId} TEXT${flags}`);
    }
  }
  if (summary.status === 'failed') {
    // The runtime names a login as `mcp login FLOW SERVER`; this command may know the flow's file.
    const message =
      flowFile === undefined
        ? (summary.message ?? '')
        : (summary.message ?? '').replaceAll('mcp login FLOW ', `mcp login ${shellWord(flowFile)} `);
    lines.push(`reason: ${summary.reason ?? ''} ${message}`.trimEnd());
    if (summary.continueWith)
      lines.push(
        `continue with: ${command} retry ${summary.runId} --model M${flags}   (M: a model that works; without --model the same one is asked again)`,
      );
  }
  if (summary.status === 'completed') {
    if (summary.reply !== null) lines.push(`reply: ${summary.reply}`);
    lines.push(`outputs: ${JSON.stringify(summary.outputs)}`);
  }
  return lines.join('\n');
}

/** Several approvers, or an expiry (docs/approvals.md): who has approved so far, how many are needed, until when. */
function approverLines(pending: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const needed = pending.approvers as { count: number; roles?: string[] } | undefined;
  const votes = Array.isArray(pending.approvedBy) ? (pending.approvedBy as { who: string }[]) : [];
  if (needed && needed.count > 1) {
    const roles = needed.roles ? ` (roles: ${needed.roles.join(', ')})` : '';
    const who = votes.length > 0 ? `: ${votes.map((v) => v.who).join(', ')}` : '';
    lines.push(`approved by ${votes.length} of ${needed.count}${roles}${who}`);
  }
  if (typeof pending.expiresAt === 'string') lines.push(`expires at ${pending.expiresAt}`);
  return lines;
}

/** What a suspended run waits for, as the trace line says it. */
function waitingFor(f: Record<string, unknown>): string {
  if (f.kind === 'APPROVAL') return 'approval';
  if (f.kind === 'TASK') return taskText((f.pending as Record<string, unknown> | undefined)?.task);
  const authorization = (f.pending as Record<string, unknown> | undefined)?.authorization;
  return isAuthorization(authorization)
    ? `the authorization of MCP server ${authorization.server}`
    : 'an answer';
}

/** `task TASK_ID of MCP server SERVER (TOOL): STATUS — MESSAGE` of a TASK item (docs/mcp.md). */
function taskText(value: unknown): string {
  const task = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const message = typeof task.statusMessage === 'string' ? ` — ${task.statusMessage}` : '';
  return `task ${String(task.taskId)} of MCP server ${String(task.server)} (${String(task.tool)}): ${String(task.status)}${message}`;
}

function isAuthorization(value: unknown): value is { server: string; tool?: string } {
  return (
    typeof value === 'object' && value !== null && typeof (value as { server?: unknown }).server === 'string'
  );
}

/**
 * How to continue a run waiting for a person to authorize an MCP server (docs/mcp.md, "Connect"): the
 * console's Connect under `serve`, or `mcp login` (for the run's tenant) and then `answer`.
 */
function authorizationLines(
  summary: RunSummary,
  authorization: { server: string; tool?: string },
  flags: string,
  command: string,
  flowFile: string | undefined,
): string[] {
  const server = authorization.server;
  const during = authorization.tool === undefined ? '' : ` (its tool ${authorization.tool} was refused)`;
  // The flow's file when this command knows it (run FLOW), else a placeholder named after the flow.
  const file = flowFile === undefined ? 'FLOW.yaml' : shellWord(flowFile);
  const what = flowFile === undefined ? `FLOW.yaml: the file of flow ${summary.flowId}; ` : '';
  return [
    `waiting for the authorization of MCP server ${server}${during}`,
    `authorize with: ${command} mcp login ${file} ${server} [--tenant T]   (${what}T: the run's tenant; or Connect in the console of \`serve\`)`,
    `then continue with: ${command} answer ${summary.runId} authorized${flags}`,
  ];
}

/** The `runs` listing: a header row, then one row per run (a child run names its parent). */
export function runsTable(list: readonly RunSummary[]): string {
  const rows = visibleDeep(list).map((s) => [
    s.runId,
    s.status,
    s.flowId,
    s.updatedAt,
    s.parentRunId ? `child of ${s.parentRunId}` : '',
  ]);
  return table(['RUN_ID', 'STATUS', 'FLOW', 'UPDATED', 'PARENT'], rows);
}

/** The exit code for a run's status (docs/cli.md). */
export function exitCodeFor(status: RunSummary['status']): number {
  switch (status) {
    case 'completed':
    case 'running':
      return 0;
    case 'suspended':
      return 3;
    case 'failed':
    case 'cancelled':
      return 1;
  }
}

/** The key under which a heading event may have been printed ahead (see `headings`). */
function aheadKey(event: StoredEvent): string {
  if (event.type === 'node.started') return `node.started ${event.runId} ${String(event.nodeId)}`;
  if (event.type === 'react.round') return `react.round ${streamKey(event)}`;
  return '';
}

/** Which model call an event or delta belongs to: run, node and round. */
function streamKey(e: { runId: string; nodeId?: string | null; round?: unknown }): string {
  const round = typeof e.round === 'number' ? String(e.round) : '';
  return `${e.runId} ${e.nodeId ?? ''} ${round}`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
