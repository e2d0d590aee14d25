import { z } from 'zod';
import { InputRoundSchema, ValueMatchSchema } from './run-state.js';

const stringMap = z.record(z.string(), z.string());

/** How many people must approve a pending write, and with which roles (docs/approvals.md). */
export const ApproversNeededSchema = z
  .object({
    count: z.number().int().positive(),
    roles: z.array(z.string()).optional(),
  })
  .meta({ description: 'How many different people must approve, and with which token roles.' });

/** One person's approval of a pending write that needs several. */
export const ApproverVoteSchema = z.object({
  who: z.string(),
  role: z.string().nullable(),
  at: z.string(),
  comment: z.string().nullable(),
});
export type ApproverVote = z.infer<typeof ApproverVoteSchema>;

/** A gated write waiting for a person's approval, as traced and summarised. */
export const ApprovalPendingSchema = z.object({
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  summary: z.string(),
  /** Argument name → the evidence id its value was found in (`source: evidence` contracts). */
  provenance: stringMap.optional().meta({
    description: 'Argument name → the evidence id its value was found in (`source: evidence` contracts).',
  }),
  /** Argument name → the user's words (run input or a follow-up answer) its value was found in; absent when none. */
  userProvenance: stringMap.optional().meta({
    description:
      "Argument name → the user's words (run input or a follow-up answer) its value was found in (`source: user` contracts); absent when none.",
  }),
  /** Argument name → where its value (or each element or field of it) was found; absent when none. */
  matches: z.record(z.string(), z.array(ValueMatchSchema)).optional().meta({
    description:
      'Argument name → where its value (or each element or field of it) was found: the evidence id, the path of the leaf in its payload and, for a match inside a text, the span (docs/flows.md, matching); absent when none.',
  }),
  /** The MCP server annotates the tool `destructiveHint: true`. */
  destructive: z
    .boolean()
    .optional()
    .meta({ description: 'The MCP server annotates the tool `destructiveHint: true`.' }),
  /** The pending item id; a response sends it as `expect`. */
  id: z.string().optional().meta({ description: 'The pending item id; send it as `expect`.' }),
  /** The tool's approval policy asks for several approvers (docs/approvals.md). */
  approvers: ApproversNeededSchema.optional(),
  /** Who has approved so far, in order (several approvers). */
  approvedBy: z.array(ApproverVoteSchema).optional().meta({
    description: 'Who has approved so far, in order, while more approvals are needed (docs/approvals.md).',
  }),
  /** When the approval expires (the tool policy's `approval.expiresAfter`); absent when it never does. */
  expiresAt: z.string().optional().meta({
    description:
      "When the approval expires (ISO 8601; the tool policy's `approval.expiresAfter` after the suspension); absent when it never does.",
  }),
  /** Set once the approval expired and was rejected (claimed by one process). */
  expiredAt: z.string().optional().meta({
    description: 'Set once the approval expired and was rejected (`onExpiry: reject`).',
  }),
  /** Set once the approval expired and was escalated (`onExpiry: escalate`); it still waits for a person. */
  escalatedAt: z.string().optional().meta({
    description:
      'Set once the approval expired and was escalated (`onExpiry: escalate`); it still waits for a person.',
  }),
});

/** A server's question to the person: which server, during which call, and what it asked (docs/mcp.md, "Elicitation"). */
export const ElicitationPendingSchema = z.object({
  server: z.string(),
  tool: z.string(),
  /** The fingerprint of the call it came up in: the answer is given when that call is sent again. */
  fingerprint: z.string(),
  mode: z.enum(['form', 'url']),
  message: z.string(),
  /** Form mode: the flat JSON Schema of the requested object. */
  requestedSchema: z.record(z.string(), z.unknown()).optional(),
  /** URL mode: the link the person opens. */
  url: z.string().optional(),
  elicitationId: z.string().optional(),
  /** Set when the question came in an `input_required` result: the round the answer is retried with. */
  round: InputRoundSchema.optional(),
});
export type ElicitationPending = z.infer<typeof ElicitationPendingSchema>;

/**
 * An MCP server that needs a person to authorize the runtime (OAuth authorization code) before the run
 * can go on (docs/mcp.md, "Connect"): which server, and the tool whose call it refused, if any.
 */
export const AuthorizationPendingSchema = z.object({
  server: z.string().meta({ description: "The id of the MCP server (the flow's `mcpServers` key)." }),
  tool: z.string().optional().meta({
    description: 'The tool whose call the server refused; absent when listing its tools was refused.',
  }),
});
export type AuthorizationPending = z.infer<typeof AuthorizationPendingSchema>;

/**
 * A tool call that runs as an MCP task (docs/mcp.md, "Tools that run as tasks"): the run waits until the
 * task ends, looking at it again at `nextPollAt`; nobody answers it.
 */
export const TaskPendingSchema = z.object({
  task: z
    .object({
      server: z.string(),
      tool: z.string(),
      /** The fingerprint of the call: the call polls this task when it goes on, never sends it again. */
      fingerprint: z.string(),
      taskId: z.string(),
      /** As the server last reported it: `working`, `input_required`. */
      status: z.string(),
      statusMessage: z.string().optional(),
      /** The wait between two looks, ms (the server's `pollInterval`, bounded). */
      pollInterval: z.number(),
      /** How long the server keeps the task, ms (null: unlimited); absent when it did not say. */
      ttl: z.number().nullable().optional(),
      /** When the call started the task. */
      startedAt: z.string(),
      /** When the run looks at the task again (ISO 8601). */
      nextPollAt: z.string(),
    })
    .meta({ description: 'The MCP task the run waits for (docs/mcp.md, "Tools that run as tasks").' }),
  /** The pending item id. */
  id: z.string().optional().meta({ description: 'The pending item id.' }),
});
export type TaskPending = z.infer<typeof TaskPendingSchema>;

/** A question waiting for the person's answer, as traced and summarised. */
export const QuestionPendingSchema = z.object({
  question: z.string(),
  options: z.array(z.string()).nullable(),
  elicitation: ElicitationPendingSchema.optional().meta({
    description:
      'Set when an MCP server asked the question during a tool call (docs/mcp.md, "Elicitation"): answer with `action`, and accepted forms with their fields as a JSON object in `text`.',
  }),
  authorization: AuthorizationPendingSchema.optional().meta({
    description:
      'Set when an MCP server needs a person to authorize it (docs/mcp.md, "Connect"): `POST /v1/runs/{id}/authorization` starts it (the console\'s Connect button), or `agent-runtime mcp login` then `answer`.',
  }),
  /** The pending item id; a response sends it as `expect`. */
  id: z.string().optional().meta({ description: 'The pending item id; send it as `expect`.' }),
});

/** The pending item of a suspension as traced and summarised: a write to approve or a question. */
export const PendingItemSchema = z.union([ApprovalPendingSchema, QuestionPendingSchema, TaskPendingSchema]);
export type PendingItem = z.infer<typeof PendingItemSchema>;

/**
 * The pending item of an approval as the write gate builds it (docs/observations.md,
 * builtin_node_approval): it always carries the provenance, `{}` when no contract traced a value.
 */
export type ApprovalPending = z.infer<typeof ApprovalPendingSchema> & { provenance: Record<string, string> };

/** The pending item of a follow-up question. */
export type FollowUpPending = z.infer<typeof QuestionPendingSchema>;

/** One of the items a run with parallel branches waits for: its kind, the branch's node and the item. */
export const WaitingItemSchema = z.object({
  kind: z.enum(['APPROVAL', 'FOLLOW_UP', 'TASK']),
  nodeId: z.string(),
  pending: PendingItemSchema,
});
export type WaitingItem = z.infer<typeof WaitingItemSchema>;

/**
 * What a suspended run waits for: a person's approval of a call or an answer to a question. When
 * several parallel branches wait at once, `items` lists every one of them (the first is `pending`);
 * each is answered by its pending id, and the run goes on once all are answered.
 */
export const SuspensionSchema = z.object({
  kind: z.enum(['APPROVAL', 'FOLLOW_UP', 'TASK']),
  pending: PendingItemSchema,
  items: z.array(WaitingItemSchema).optional(),
});
export type RunSuspension = z.infer<typeof SuspensionSchema>;
