import { z } from 'zod';
import { LoopStateSchema } from './loop-state.js';
import { ElicitationAnswerSchema, NodeStateSchema, RunStateSchema, ThreadTurnSchema } from './run-state.js';
import { ElicitationPendingSchema, SuspensionSchema } from './pending.js';

/**
 * A server's question whose request this process holds open for a while (docs/mcp.md, "Holding the
 * request open"): any process may answer it until `until`; the driver gives that answer to the server
 * in the same request, else it falls back to cancelling the call and suspending the run.
 */
export const HeldQuestionSchema = z.object({
  /** `hld_` and hex digits: what a response names as `expect`. */
  id: z.string(),
  nodeId: z.string(),
  /** Epoch milliseconds: the hold ends then; an answer after it goes to the suspended run. */
  until: z.number(),
  elicitation: ElicitationPendingSchema,
  /** The person's answer, written by whichever process took it; the driver consumes it once. */
  answer: ElicitationAnswerSchema.extend({ who: z.string().nullable() }).optional(),
});
export type HeldQuestion = z.infer<typeof HeldQuestionSchema>;

/**
 * One node run of a flow with parallel branches or a map (docs/flows.md, "Parallel branches"): its
 * own node state, loop position and conversation (key `<nodeId>#<nodeRuns>`).
 */
export const BranchSchema = z.object({
  nodeId: z.string(),
  /** The run-wide node run number given when this branch started. */
  nodeRuns: z.number().int().nonnegative(),
  node: NodeStateSchema.nullable(),
  loop: LoopStateSchema,
  /** Set while the branch waits on a person: its pending item. */
  suspension: SuspensionSchema.optional(),
  /** For a map node's branch: the items (fixed once evaluated) and the outputs of the items done so far. */
  map: z
    .object({
      items: z.array(z.unknown()),
      /** One entry per item: its body's outputs once it completed, null until then. */
      results: z.array(z.record(z.string(), z.unknown()).nullable()),
      /** How many items have been started. */
      started: z.number().int().nonnegative(),
      /** Set when an item failed (or the list could not be had): the map node fails with it. */
      failed: z.object({ reason: z.string(), message: z.string() }).optional(),
    })
    .optional(),
  /** For a map item's branch: the map node's node run number and the item's index and value. */
  item: z.object({ of: z.number().int(), index: z.number().int(), value: z.unknown() }).optional(),
});
export type Branch = z.infer<typeof BranchSchema>;

/** Where a flow with parallel branches stands beyond its active branches. */
export const GraphStateSchema = z.object({
  /** Joins asked for by an edge, waiting for every branch that can still reach them to end. */
  joins: z.array(z.string()),
  /** The first branch that failed with no edge routing the failure: the run fails once the others end. */
  failed: z.object({ nodeId: z.string(), reason: z.string(), message: z.string().optional() }).optional(),
});
export type GraphState = z.infer<typeof GraphStateSchema>;

/**
 * The small mutable state of a run as persisted in its row (`RunRecord.state`). Evidence and the
 * conversation live in their own append-only tables, so a step never re-serialises history. This is
 * the document at the current version (its `schema` field); the store checks a loaded run against it.
 */
export const StateDocSchema = z.object({
  schema: z.literal(1),
  run: RunStateSchema.omit({ evidence: true }),
  /** The node being run; null once the run has completed or was cancelled (a failed run keeps its failed node for `retry`). */
  nodeId: z.string().nullable(),
  /** How many node runs have started (the current one's key is `<nodeId>#<nodeRuns>`). */
  nodeRuns: z.number().int().nonnegative(),
  node: NodeStateSchema.nullable(),
  loop: LoopStateSchema,
  /**
   * A flow with parallel branches or maps: the node runs active now (then `nodeId` is null and `node`
   * unused). Absent for flows that run one node at a time.
   */
  branches: z.array(BranchSchema).optional(),
  /** A flow with parallel branches or maps: joins waiting and a failure waiting for the others. */
  graph: GraphStateSchema.optional(),
  /**
   * A flow with parallel branches or maps: per node id, the model calls started in it so far (all its
   * node runs), which the scripted model serves its turns by.
   */
  nodeModelCalls: z.record(z.string(), z.number()).optional(),
  /** The run's model calls so far, across nodes and processes. */
  modelCalls: z.number(),
  /** What the run's own model calls cost so far, from the flow's `prices` (absent: nothing priced yet). */
  cost: z.number().optional(),
  /** For a delegated child run: the parent's delegate call that started it. */
  parentCallId: z.string().optional(),
  /** The run's trace context (W3C traceparent) when telemetry is on, so every process joins one trace. */
  traceparent: z.string().optional(),
  /**
   * Set when a cancel arrived while a write of the run was in flight: the driver records that write's
   * result, starts nothing new and ends the run `cancelled` (engine/cancel.ts).
   */
  cancelRequested: z.literal(true).optional(),
  /** Set while a driver holds a server's question open for a person's answer (see HeldQuestionSchema). */
  held: HeldQuestionSchema.optional(),
  /** For a forked run (docs/evals.md, "Fork"): the run and the event it continues from. */
  forkedFrom: z.object({ runId: z.string(), seq: z.number().int() }).optional(),
  /**
   * The answer to the person of the last node that completed (its finish summary or text answer);
   * the run summary's `reply` once the run completed. Absent: that node gave none.
   */
  reply: z.string().optional(),
  /**
   * For a run in a thread (docs/threads.md): the thread's id and the earlier turns the run's
   * conversations start with, fixed when the run was created.
   */
  thread: z.object({ id: z.string(), history: z.array(ThreadTurnSchema) }).optional(),
});
export type RunStateDoc = z.infer<typeof StateDocSchema>;

/** The key of the current node run's conversation. */
export function nodeRunKey(doc: RunStateDoc): string {
  return `${doc.nodeId ?? '-'}#${doc.nodeRuns}`;
}
