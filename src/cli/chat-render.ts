import type { StoredEvent } from '../store/store.js';
import type { ModelDeltaEvent } from '../trace/live.js';
import { oneLine } from './text.js';
import { visible } from './visible.js';

const MAX_ARGS = 80;

/**
 * What `agent-runtime chat` shows of a run (docs/cli.md#chat): the model's text as it is written (a
 * streaming model's deltas; a whole turn's text otherwise), one line per real tool call with its
 * outcome, and the reply when it was not already said. Everything from the run is printed with its
 * control characters made visible (src/cli/visible.ts).
 */
export class ChatRenderer {
  /** Per model call (`run node round`), the text shown so far. */
  readonly #shown = new Map<string, string>();
  /** The text said last (trimmed), so the reply is not said twice. */
  #last: string | null = null;
  /** True while a streamed text line is open (no newline written yet). */
  #open = false;

  constructor(private readonly write: (text: string) => void) {}

  /** A streaming model's text so far: writes the new piece. */
  readonly onDelta = (delta: ModelDeltaEvent): void => {
    const key = `${delta.runId} ${delta.nodeId} ${delta.round ?? '-'}`;
    const shown = this.#shown.get(key) ?? '';
    const text = delta.text.trimStart();
    if (text === '' || text === shown || !text.startsWith(shown)) return;
    if (!this.#open) this.write('assistant> ');
    this.#open = true;
    this.write(visible(text.slice(shown.length), { keepLines: true }));
    this.#shown.set(key, text);
  };

  /** A committed trace event. */
  readonly onEvent = (event: StoredEvent): void => {
    const e = event as Record<string, unknown>;
    switch (event.type) {
      case 'model.response': {
        const key = `${event.runId} ${String(e.nodeId)} ${String(e.round)}`;
        const text = typeof e.text === 'string' ? e.text.trim() : '';
        const shown = this.#shown.get(key);
        this.#shown.delete(key);
        if (shown !== undefined && text.startsWith(shown.trimEnd())) {
          const rest = text.slice(shown.trimEnd().length);
          if (rest) this.write(visible(rest, { keepLines: true }));
          this.#endLine();
          this.#last = text;
        } else {
          this.#endLine();
          this.#say(text);
        }
        return;
      }
      case 'tool.invoked':
        this.#endLine();
        this.#tool(e);
        return;
      case 'run.completed':
        this.#endLine();
        if (typeof e.reply === 'string' && e.reply.trim() !== this.#last) this.#say(e.reply);
        return;
      case 'run.failed':
        this.#endLine();
        this.write(
          `  ✗ run failed (${String(e.reason)}): ${visible(oneLine(typeof e.message === 'string' ? e.message : '', 200))}\n`,
        );
        return;
      default:
        return;
    }
  };

  #say(text: string): void {
    const trimmed = text.trim();
    if (trimmed === '') return;
    this.#last = trimmed;
    this.write(`assistant> ${visible(trimmed, { keepLines: true })}\n`);
  }

  #endLine(): void {
    if (!this.#open) return;
    this.#open = false;
    this.write('\n');
  }

  #tool(e: Record<string, unknown>): void {
    const tool = String(e.tool);
    // The builtins are the runtime's own; a gated write is asked for right after.
    if (tool.startsWith('builtin_') || (e.outcome === 'DEFERRED' && e.errorCode === 'APPROVAL_REQUIRED'))
      return;
    const shortArgs = oneLine(e.args ?? {}, MAX_ARGS);
    const code = typeof e.errorCode === 'string' ? ` ${e.errorCode}` : '';
    const why =
      e.outcome !== 'SUCCESS' && typeof e.message === 'string' ? `: ${oneLine(e.message, 200)}` : '';
    const evidence = typeof e.evidenceId === 'string' ? ` [${e.evidenceId}]` : '';
    this.write(visible(`  ⚙ ${tool} ${shortArgs} → ${String(e.outcome)}${code}${evidence}${why}`) + '\n');
  }
}
