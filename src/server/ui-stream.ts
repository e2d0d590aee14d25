import type { StoredEvent } from '../store/store.js';
import type { ModelDeltaEvent } from '../trace/live.js';
import type { ToolOutcomeMetadata, UiChunk } from './ui-chunks.js';
import { UiTexts } from './ui-text.js';

export type { ToolOutcomeMetadata, UiChunk } from './ui-chunks.js';

/**
 * The AI SDK's UI message stream protocol (v1, `x-vercel-ai-ui-message-stream: v1`), as far as a run
 * of ours speaks it (docs/threads.md#usechat): the chunks, and the translation of a run's committed
 * trace events into them. Kept apart from the HTTP writing so that a bounded SSE writer can carry it.
 */

/** Where the translation stands after an event: go on, or the run stopped for now (suspended or ended). */
export type ChunkerState = 'open' | 'closed';

/**
 * Turns the events of one run (from where the response started) into UI chunks. Text comes from the
 * model's turns — live, as a streaming model writes it (`onDelta`, src/server/ui-text.ts) — and the
 * reply; each real tool call is a tool part with its outcome as metadata; a
 * gated write waiting for approval is a tool part named after the write whose approval id is the
 * pending item id; after that write is approved its result goes to that same part. The stream ends at
 * the run's next suspension or its end.
 */
export class RunChunker {
  readonly #texts = new UiTexts();
  /** The pending item id of an approved write, waiting for that write's result. */
  #approved: { id: string; tool: string } | null = null;
  state: ChunkerState = 'open';

  constructor(approved: { id: string; tool: string } | null = null) {
    this.#approved = approved;
  }

  /** The chunks of a streaming model's text so far (a live `model.delta`); none once closed. */
  onDelta(delta: ModelDeltaEvent): UiChunk[] {
    return this.state === 'closed' ? [] : this.#texts.delta(delta);
  }

  /** The chunks of one event, in order; none once closed. */
  onEvent(e: StoredEvent): UiChunk[] {
    if (this.state === 'closed') return [];
    switch (e.type) {
      case 'model.response':
        return this.#texts.response(
          String(e.nodeId),
          Number(e.round),
          typeof e.text === 'string' ? e.text : '',
          Array.isArray(e.toolCalls) ? e.toolCalls.length : 0,
        );
      case 'tool.invoked':
        return [...this.#tool(e), ...this.#texts.settled()];
      case 'tool.skipped':
        return this.#texts.settled();
      case 'run.resumed':
        return this.#resumed(e);
      case 'run.suspended':
        this.state = 'closed';
        return [...this.#texts.close(), ...this.#suspended(e)];
      case 'run.completed':
        this.state = 'closed';
        return [
          ...this.#texts.close(),
          ...(typeof e.reply === 'string' && e.reply.trim() !== this.#texts.last
            ? this.#texts.say(e.reply)
            : []),
        ];
      case 'run.failed':
      case 'run.cancelled':
        this.state = 'closed';
        return [
          ...this.#texts.close(),
          ...this.#texts.say(`(${String(e.reason)}) ${typeof e.message === 'string' ? e.message : ''}`),
        ];
      default:
        return [];
    }
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
      return this.#texts.say(typeof pending.question === 'string' ? pending.question : '');
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
