import type { UIMessageChunk } from 'ai';

/**
 * The chunks of the AI SDK's UI message stream protocol (v1, `x-vercel-ai-ui-message-stream: v1`) that
 * this server writes (docs/threads.md#usechat).
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

/**
 * Checked by the compiler against the `ai` package's own `UIMessageChunk`: a chunk this server writes
 * that the AI SDK's `useChat` would not read fails to compile (the type is `true` only while it fits).
 */
export type UiChunkFitsAiSdk = [UiChunk] extends [UIMessageChunk] ? true : never;
const fitsAiSdk: UiChunkFitsAiSdk = true;
void fitsAiSdk;
