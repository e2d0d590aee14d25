import type { StoredEvent } from '../store/store.js';

/**
 * The AI SDK's UI message stream protocol (v1, `x-vercel-ai-ui-message-stream: v1`), as far as a run
 * of ours speaks it (docs/threads.md#usechat): the chunks, and the translation of a run's committed
 * trace events into them. Kept apart from the HTTP writing so that a bounded SSE writer can carry it.
 */

/** The metadata of a tool part: what the guards made of the call (our observation). */
export interface ToolOutcomeMetadata {
  [key: string]: string | null;
  outcome: string;
  errorCode: string | null;
  /** The reason and the next step, as the model read them. */
  message: string | null;
  evidenceId: string | null;
}

/** The chunks of the UI message stream this server writes (a subset of the `ai` package's `UIMessageChunk`). */
export type UiChunk =
  | { type: 'start'; messageId?: string; messageMetadata?: Record<string, string> }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown; dynamic: true }
  | {
      type: 'tool-output-available';
      toolCallId: string;
      output: unknown;
      dynamic: true;
      toolMetadata?: ToolOutcomeMetadata;
    }
  | { type: 'tool-output-denied'; toolCallId: string }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string; reason?: string }
  | { type: 'error'; errorText: string }
  | { type: 'finish'; finishReason?: 'stop' | 'error' | 'other'; messageMetadata?: Record<string, string> };

/** Where the translation stands after an event: go on, or the run stopped for now (suspended or ended). */
export type ChunkerState = 'open' | 'closed';

/**
 * Turns the events of one run (from where the response started) into UI chunks. Text comes from the
 * model's turns and the reply; each real tool call is a tool part with its outcome as metadata; a
 * gated write waiting for approval is a tool part named after the write whose approval id is the
 * pending item id; after that write is approved its result goes to that same part. The stream ends at
 * the run's next suspension or its end.
 */
export class RunChunker {
  #texts = 0;
  #lastText: string | null = null;
  /** The pending item id of an approved write, waiting for that write's result. */
  #approved: { id: string; tool: string } | null = null;
  state: ChunkerState = 'open';

  constructor(approved: { id: string; tool: string } | null = null) {
    this.#approved = approved;
  }

  /** The chunks of one event, in order; none once closed. */
  onEvent(e: StoredEvent): UiChunk[] {
    if (this.state === 'closed') return [];
    switch (e.type) {
      case 'model.response':
        return this.#text(typeof e.text === 'string' ? e.text : '');
      case 'tool.invoked':
        return this.#tool(e);
      case 'run.resumed':
        return this.#resumed(e);
      case 'run.suspended':
        this.state = 'closed';
        return this.#suspended(e);
      case 'run.completed':
        this.state = 'closed';
        return typeof e.reply === 'string' && e.reply !== this.#lastText ? this.#text(e.reply) : [];
      case 'run.failed':
      case 'run.cancelled':
        this.state = 'closed';
        return this.#text(`(${String(e.reason)}) ${typeof e.message === 'string' ? e.message : ''}`.trim());
      default:
        return [];
    }
  }

  #text(text: string): UiChunk[] {
    if (text.trim() === '') return [];
    this.#texts += 1;
    this.#lastText = text.trim();
    const id = `text_${this.#texts}`;
    return [
      { type: 'text-start', id },
      { type: 'text-delta', id, delta: text.trim() },
      { type: 'text-end', id },
    ];
  }

  #tool(e: StoredEvent): UiChunk[] {
    const tool = String(e.tool);
    // The builtins are the runtime's own; a gated write shows as its approval request instead.
    if (tool.startsWith('builtin_') || (e.outcome === 'DEFERRED' && e.errorCode === 'APPROVAL_REQUIRED'))
      return [];
    const toolMetadata: ToolOutcomeMetadata = {
      outcome: String(e.outcome),
      errorCode: typeof e.errorCode === 'string' ? e.errorCode : null,
      message: typeof e.message === 'string' ? e.message : null,
      evidenceId: typeof e.evidenceId === 'string' ? e.evidenceId : null,
    };
    const output = 'result' in e ? e.result : { outcome: e.outcome, message: e.message ?? null };
    const approved = this.#approved;
    if (approved && approved.tool === tool) {
      this.#approved = null;
      return [
        { type: 'tool-output-available', toolCallId: approved.id, output, dynamic: true, toolMetadata },
      ];
    }
    const toolCallId = String(e.callId);
    return [
      { type: 'tool-input-available', toolCallId, toolName: tool, input: e.args, dynamic: true },
      { type: 'tool-output-available', toolCallId, output, dynamic: true, toolMetadata },
    ];
  }

  #resumed(e: StoredEvent): UiChunk[] {
    if (e.kind !== 'APPROVAL' || !this.#approved) return [];
    if (e.decision === 'rejected') {
      const id = this.#approved.id;
      this.#approved = null;
      return [{ type: 'tool-output-denied', toolCallId: id }];
    }
    return [];
  }

  #suspended(e: StoredEvent): UiChunk[] {
    const pending = (e.pending ?? {}) as Record<string, unknown>;
    if (e.kind === 'FOLLOW_UP')
      return this.#text(typeof pending.question === 'string' ? pending.question : '');
    const id = typeof pending.id === 'string' ? pending.id : `pending_${e.seq}`;
    const summary = typeof pending.summary === 'string' ? pending.summary : undefined;
    return [
      {
        type: 'tool-input-available',
        toolCallId: id,
        toolName: String(pending.tool),
        input: pending.args,
        dynamic: true,
      },
      {
        type: 'tool-approval-request',
        approvalId: id,
        toolCallId: id,
        ...(summary ? { reason: summary } : {}),
      },
    ];
  }
}

/** One chunk as an SSE message (`data: {json}` and a blank line); `[DONE]` ends the stream. */
export function sseData(chunk: UiChunk | '[DONE]'): string {
  return `data: ${chunk === '[DONE]' ? chunk : JSON.stringify(chunk)}\n\n`;
}
