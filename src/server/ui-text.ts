import type { ModelDeltaEvent } from '../trace/live.js';
import type { UiChunk } from './ui-chunks.js';

/**
 * The text parts of one UI message stream (docs/threads.md#usechat): a whole text said at once (a
 * reply, a question, a non-streaming model's turn) and a streaming model's text as it is written —
 * one `text-start`, a `text-delta` per new piece, and `text-end` with the turn's `model.response`.
 *
 * A model call streams before the events of its round are committed. A delta is therefore shown at
 * once only when the committed events read so far are at a round boundary (no tool call of the last
 * response still waits for its result, and no round of that node was skipped); otherwise the latest
 * one is held until they are (it carries the whole text so far), or dropped when the turn's response
 * comes first (which then says the whole text). So a text part never lands before the tool parts of
 * the rounds before it.
 */
export class UiTexts {
  #count = 0;
  #last: string | null = null;
  /** The streaming text part: its model call (`node round`), part id and the text sent so far. */
  #open: { key: string; id: string; sent: string } | null = null;
  /** The latest delta not shown yet (the events are behind it). */
  #held: ModelDeltaEvent | null = null;
  /** Calls of the last model response still without their `tool.invoked`/`tool.skipped`. */
  #awaiting = 0;
  /** Per node, the round of the last model response read. */
  readonly #rounds = new Map<string, number>();

  /** The last text said (trimmed), to not say the reply twice. */
  get last(): string | null {
    return this.#last;
  }

  /** A whole text as one part (nothing for blank text). */
  say(text: string): UiChunk[] {
    const trimmed = text.trim();
    if (trimmed === '') return [];
    this.#count += 1;
    this.#last = trimmed;
    const id = `text_${this.#count}`;
    return [
      { type: 'text-start', id },
      { type: 'text-delta', id, delta: trimmed },
      { type: 'text-end', id },
    ];
  }

  /** A streaming model's text so far: the new piece, when it may be shown now. */
  delta(delta: ModelDeltaEvent): UiChunk[] {
    const done = this.#rounds.get(delta.nodeId);
    if (delta.round !== null && done !== undefined && done >= delta.round) return [];
    if (!this.#atBoundary(delta)) {
      this.#held = delta;
      return [];
    }
    this.#held = null;
    return this.#stream(key(delta.nodeId, delta.round), delta.text);
  }

  /** A committed model response: ends its streamed part (with what was not streamed yet) or says its text. */
  response(nodeId: string, round: number, text: string, calls: number): UiChunk[] {
    this.#rounds.set(nodeId, round);
    this.#awaiting = calls;
    const k = key(nodeId, round);
    if (this.#held && key(this.#held.nodeId, this.#held.round) === k) this.#held = null;
    const open = this.#open;
    if (!open || open.key !== k) return [...this.close(), ...this.say(text)];
    const final = text.trim();
    const rest = final.startsWith(open.sent) ? final.slice(open.sent.length) : '';
    this.#last = final;
    return [...(rest ? [{ type: 'text-delta' as const, id: open.id, delta: rest }] : []), ...this.close()];
  }

  /** A tool call of the last response was recorded; a held delta may now be shown. */
  settled(): UiChunk[] {
    if (this.#awaiting > 0) this.#awaiting -= 1;
    const held = this.#held;
    return held && this.#atBoundary(held) ? this.delta(held) : [];
  }

  /** Ends the streaming part, if one is open. */
  close(): UiChunk[] {
    const open = this.#open;
    this.#open = null;
    return open ? [{ type: 'text-end', id: open.id }] : [];
  }

  #atBoundary(delta: ModelDeltaEvent): boolean {
    if (this.#awaiting > 0) return false;
    const done = this.#rounds.get(delta.nodeId);
    return delta.round === null || done === undefined || done >= delta.round - 1;
  }

  #stream(k: string, text: string): UiChunk[] {
    const so = text.trimStart();
    const out: UiChunk[] = [];
    if (this.#open && this.#open.key !== k) out.push(...this.close());
    if (so === '') return out;
    if (!this.#open) {
      this.#count += 1;
      this.#open = { key: k, id: `text_${this.#count}`, sent: '' };
      out.push({ type: 'text-start', id: this.#open.id });
    }
    const open = this.#open;
    if (!so.startsWith(open.sent) || so.length === open.sent.length) return out;
    out.push({ type: 'text-delta', id: open.id, delta: so.slice(open.sent.length) });
    open.sent = so;
    return out;
  }
}

function key(nodeId: string, round: number | null): string {
  return `${nodeId} ${round ?? '-'}`;
}
