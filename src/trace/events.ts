import type { PendingItem } from '../records/pending.js';
import type { TokenUsage } from '../model/model.js';

/** Fields every trace event has (docs/trace.md). */
export interface EventBase {
  seq: number;
  ts: string;
  runId: string;
  type: string;
  nodeId?: string;
  round?: number;
}

/** The payload of each trace event type, without the base fields (docs/trace.md). */
/** A map item: the map node's node run (`of`) and the item's index, 0-based. */
export interface MapItemRef {
  of: number;
  index: number;
}

export type EventPayload =
  | {
      type: 'run.started';
      flowId: string;
      flowVersion: string | number;
      input: unknown;
      parentRunId?: string;
    }
  | {
      type: 'node.started';
      nodeId: string;
      maxRounds?: number;
      maxStalls?: number;
      /** In flows with parallel branches or maps: the node run's number (its conversation is `<nodeId>#<nodeRun>`). */
      nodeRun?: number;
      /** In flows with parallel branches or maps: the nodes whose end started this one (absent for the first). */
      from?: string[];
      /** For an item of a map: the map node's node run and the item's index. */
      item?: MapItemRef;
    }
  /** The protocol revision an MCP server of the flow negotiated, once per run and process (docs/trace.md). */
  | {
      type: 'mcp.connected';
      nodeId: string;
      server: string;
      protocolVersion: string;
      era: 'modern' | 'legacy';
      /** The server's safe `serverInfo.icons` URL (https or a small raster data URL), when it declares one. */
      icon?: string;
    }
  | { type: 'react.round'; nodeId: string; round: number }
  | {
      type: 'model.response';
      nodeId: string;
      round: number;
      toolCalls: { callId: string; tool: string }[];
      text: string;
      usage: TokenUsage;
    }
  | { type: 'react.no_tool_calls'; nodeId: string; round: number; stalls: number }
  /** A running call's tool reported progress (rate-limited per call, docs/trace.md). */
  | {
      type: 'tool.progress';
      nodeId: string;
      round: number;
      callId: string;
      tool: string;
      progress: number;
      total?: number;
      message?: string;
    }
  /** An MCP server's question is held open for a person until `until` (docs/mcp.md, "Elicitation"). */
  | {
      type: 'mcp.held';
      nodeId: string;
      server: string;
      tool: string;
      question: string;
      id: string;
      until: string;
    }
  /** A person answered an MCP server's question while the driver held the server's request open (docs/mcp.md). */
  | {
      type: 'mcp.answered';
      nodeId: string;
      server: string;
      tool: string;
      question: string;
      action: 'accept' | 'decline' | 'cancel';
      answer: string;
      who: string | null;
    }
  /** An MCP server's log message during a call (at most 50 per call, data cut; docs/trace.md). */
  | {
      type: 'mcp.log';
      nodeId: string;
      round: number;
      callId: string;
      tool: string;
      server: string;
      level: string;
      logger?: string;
      data: string;
      capped?: true;
    }
  | {
      type: 'tool.invoked';
      nodeId: string;
      round: number;
      callId: string;
      tool: string;
      args: unknown;
      outcome: string;
      errorCode: string | null;
      message: string;
      evidenceId: string | null;
      executed: boolean;
      level: 'info' | 'warn';
      lookBack: boolean;
      /** What the call returned as the guards and evidence saw it, bounded (absent when it did not run). */
      result?: unknown;
      /** True when `result` is the cut beginning of a larger result. */
      resultTruncated?: boolean;
      /** The MCP tool's safe icon URL (https or a small raster data URL), when it declares one. */
      icon?: string;
    }
  | { type: 'tool.skipped'; nodeId: string; round: number; callId: string; tool: string }
  /** A call that runs as an MCP task: the server created it, or the run looked at it (docs/trace.md). */
  | {
      type: 'tool.task';
      nodeId: string;
      round: number;
      callId: string;
      tool: string;
      server: string;
      taskId: string;
      phase: 'started' | 'polled';
      status: string;
      statusMessage?: string;
    }
  | { type: 'react.stall'; nodeId: string; round: number; stalls: number; maxStalls: number }
  | { type: 'phase.hint'; nodeId: string; round: number; text: string }
  /** A person's steering message, read at the start of this round: the model gets it as the user's words. */
  | {
      type: 'run.message';
      nodeId: string;
      round: number;
      messageId: string;
      /** The message's number in the run (from 1), not the event's `seq`. */
      messageSeq: number;
      text: string;
      who: string | null;
      /** When the message was accepted. */
      acceptedAt: string;
    }
  | {
      /** The node run's conversation was compacted before this round's model call (estimated tokens). */
      type: 'context.compacted';
      nodeId: string;
      round: number;
      before: number;
      after: number;
      budget: number;
      /** Rounds whose tool results are stubs, and rounds folded into the digest, from the first on. */
      stubbedRounds: number;
      droppedRounds: number;
    }
  | { type: 'node.suspended'; nodeId: string; kind: 'APPROVAL' | 'FOLLOW_UP' | 'TASK'; pending: PendingItem }
  | { type: 'run.suspended'; nodeId: string; kind: 'APPROVAL' | 'FOLLOW_UP' | 'TASK'; pending: PendingItem }
  | {
      type: 'run.resumed';
      nodeId?: string;
      kind: 'APPROVAL' | 'FOLLOW_UP' | 'RECOVERY' | 'TASK';
      decision?: 'approved' | 'rejected';
      comment?: string | null;
      who?: string | null;
      answer?: string;
      /** An answer to an MCP server's question (elicitation): what the person chose. */
      action?: 'accept' | 'decline' | 'cancel';
      /** An approval several people gave (docs/approvals.md): each of them, in order. */
      approvers?: string[];
      /** An approval with edited arguments: the arguments approved, and those the model had given. */
      args?: Record<string, unknown>;
      editedFrom?: Record<string, unknown>;
    }
  /** One approval of a pending write that needs several; the run keeps waiting (docs/approvals.md). */
  | {
      type: 'approval.voted';
      nodeId?: string;
      tool: string;
      who: string;
      role: string | null;
      /** Approvals so far, and how many are needed. */
      approvals: number;
      count: number;
    }
  /** An MCP server with `sampling: true` asked the node's model during a call of `tool` (texts bounded). */
  | {
      type: 'sampling.requested';
      nodeId: string;
      server: string;
      tool: string;
      messages: { role: 'user' | 'assistant'; text: string }[];
      systemPrompt?: string;
      maxTokens: number;
    }
  /** The model's answer to it (`ok`), or why there is none. */
  | {
      type: 'sampling.completed';
      nodeId: string;
      server: string;
      tool: string;
      ok: boolean;
      model?: string;
      text?: string;
      usage?: TokenUsage;
      message?: string;
    }
  /** An approval not decided within its `expiresAfter`: rejected (`onExpiry: reject`) by any serve or worker. */
  | {
      type: 'approval.expired';
      nodeId: string;
      pendingId: string;
      tool: string;
      expiresAt: string;
    }
  /** An approval not decided within its `expiresAfter` with `onExpiry: escalate`: still waiting, escalated. */
  | {
      type: 'approval.escalated';
      nodeId: string;
      pendingId: string;
      tool: string;
      expiresAt: string;
      escalateTo: string[];
    }
  /** A failed run taken up again by an operator (`retry`): it continues in the node that failed. */
  | { type: 'run.retried'; nodeId: string; reason: string; message: string; who: string | null }
  /** `item`: for a map item's node run, as on its node.started (every event of that node run has it). */
  | { type: 'node.completed'; nodeId: string; outputs: Record<string, unknown>; item?: MapItemRef }
  | { type: 'node.failed'; nodeId: string; reason: string; message: string; item?: MapItemRef }
  /** `reply`: the run's answer to the person (the run summary's `reply`), when its last node gave one. */
  | { type: 'run.completed'; outputs: Record<string, Record<string, unknown>>; reply?: string }
  | { type: 'run.failed'; reason: string; failedNode: string | null; message: string }
  | { type: 'run.cancelled'; reason: 'CANCELLED' };

/** A complete trace event. */
export type TraceEvent = EventBase & EventPayload;

/** Every event type, in docs/trace.md order. */
export const EVENT_TYPES = [
  'run.started',
  'node.started',
  'mcp.connected',
  'react.round',
  'run.message',
  'model.response',
  'react.no_tool_calls',
  'tool.progress',
  'mcp.log',
  'mcp.held',
  'mcp.answered',
  'tool.invoked',
  'tool.skipped',
  'tool.task',
  'react.stall',
  'phase.hint',
  'context.compacted',
  'sampling.requested',
  'sampling.completed',
  'node.suspended',
  'run.suspended',
  'run.resumed',
  'approval.voted',

  'approval.expired',
  'approval.escalated',
  'run.retried',
  'node.completed',
  'node.failed',
  'run.completed',
  'run.failed',
  'run.cancelled',
] as const;
