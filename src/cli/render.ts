import type { StoredEvent } from '../store/store.js';
import type { RunSummary } from '../runtime/summary.js';
import { oneLine, table } from './text.js';

const COLORS = { SUCCESS: 32, FAILED: 31, REJECTED: 33, DEFERRED: 36, dim: 2, bold: 1 } as const;

/** Turns trace events into readable lines for a terminal (outcome words always shown, colour optional). */
export class TraceRenderer {
  private spinner: NodeJS.Timeout | null = null;
  private frame = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly color: boolean,
    private readonly animate: boolean,
  ) {}

  /** Renders one event (a sink for the runtime's `onEvent`). */
  readonly onEvent = (event: StoredEvent): void => {
    this.stopSpinner();
    const line = this.line(event);
    if (line !== null) this.write(`${line}\n`);
    if (event.type === 'react.round' && this.animate) this.startSpinner();
  };

  /** Stops the spinner (call before printing anything else). */
  stopSpinner(): void {
    if (!this.spinner) return;
    clearInterval(this.spinner);
    this.spinner = null;
    this.write('\r\x1b[K');
  }

  private startSpinner(): void {
    const frames = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
    this.spinner = setInterval(() => {
      this.frame = (this.frame + 1) % frames.length;
      this.write(`\r${frames[this.frame]} ${this.paint('dim', 'model is thinking…')}`);
    }, 80);
    this.spinner.unref();
  }

  private paint(kind: keyof typeof COLORS, text: string): string {
    return this.color ? `\x1b[${COLORS[kind]}m${text}\x1b[0m` : text;
  }

  private line(e: StoredEvent): string | null {
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
        const text = typeof f.text === 'string' && f.text ? ` “${truncate(f.text, 100)}”` : '';
        return `  model → ${calls || '(no tool call)'}${text}`;
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
        return this.paint('bold', `⏸ waiting for ${f.kind === 'APPROVAL' ? 'approval' : 'an answer'}`);
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
 * The closing lines for a summary: what happened and, when suspended, how to continue. `flags` (e.g.
 * ` --db sqlite:x.db`) is added to every printed command and `command` starts it (`npx agent-runtime`
 * for a local install), so that it works as printed.
 */
export function describeSummary(summary: RunSummary, flags = '', command = 'agent-runtime'): string {
  const lines = [`run ${summary.runId}: ${summary.status}`];
  if (summary.status === 'suspended' && summary.suspension) {
    const pending = summary.suspension.pending as Record<string, unknown>;
    if (summary.suspension.kind === 'APPROVAL') {
      lines.push(`waiting for approval of ${String(pending.tool)} ${JSON.stringify(pending.args)}`);
      if (typeof pending.summary === 'string' && pending.summary) lines.push(`summary: ${pending.summary}`);
      lines.push(
        `continue with: ${command} approve ${summary.runId}${flags}   (or: ${command} reject ${summary.runId}${flags} --comment TEXT)`,
      );
    } else {
      lines.push(`waiting for an answer: ${String(pending.question)}`);
      if (Array.isArray(pending.options) && pending.options.length)
        lines.push(`options: ${pending.options.join(' / ')}`);
      lines.push(`continue with: ${command} answer ${summary.runId} TEXT${flags}`);
    }
  }
  if (summary.status === 'failed')
    lines.push(`reason: ${summary.reason ?? ''} ${summary.message ?? ''}`.trimEnd());
  if (summary.status === 'completed') {
    if (summary.reply !== null) lines.push(`reply: ${summary.reply}`);
    lines.push(`outputs: ${JSON.stringify(summary.outputs)}`);
  }
  return lines.join('\n');
}

/** The `runs` listing: a header row, then one row per run (a child run names its parent). */
export function runsTable(list: readonly RunSummary[]): string {
  const rows = list.map((s) => [
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

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
