import { z } from 'zod';
import { ElicitationPendingSchema, SuspensionSchema } from './pending.js';
import type { RunStateDoc } from './state-doc.js';

/** The status of a run (docs/durability.md). */
export const RunStatusSchema = z.enum(['running', 'suspended', 'completed', 'failed', 'cancelled']);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/** Token usage summed over a run; the prompt-cache counts are present only when a provider reported some. */
export const UsageSchema = z.object({
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  totalTokens: z.number().int(),
  cacheReadTokens: z
    .number()
    .int()
    .optional()
    .meta({ description: 'Prompt tokens read from the provider cache (part of inputTokens)' }),
  cacheWriteTokens: z
    .number()
    .int()
    .optional()
    .meta({ description: 'Prompt tokens written to the provider cache (part of inputTokens)' }),
});
export type Usage = z.infer<typeof UsageSchema>;

/** Outputs of completed nodes, keyed by node id, as written (JSON of any type). */
export const RunOutputsSchema = z.record(z.string(), z.record(z.string(), z.unknown()));
export type RunOutputs = z.infer<typeof RunOutputsSchema>;

/**
 * The run summary (docs/api.md), printed by `--json` and answered by the HTTP API. `outputs` holds the
 * values as written (a number stays a number, an object an object).
 */
export const RunSummarySchema = z.object({
  runId: z.string().meta({ example: 'run_3f2a9c0d1b7e4a6f8c21' }),
  status: RunStatusSchema,
  suspension: SuspensionSchema.optional(),
  outputs: RunOutputsSchema.meta({
    description:
      'Outputs of the completed nodes, keyed by node id, as written (JSON of any type); `GET /v1/flows/{flowId}` publishes their schemas (`outputsSchema`).',
  }),
  /**
   * The run's answer to the person: for a completed run, the finish summary or text answer
   * (`answer: text`) of its last node; null while the run is not completed or when that node gave none.
   */
  reply: z.string().nullable().meta({
    description:
      "The run's answer to the person: the finish summary or text answer of the last node of a completed run; null otherwise.",
  }),
  reason: z.string().optional(),
  failedNode: z.string().optional(),
  message: z.string().optional(),
  usage: UsageSchema,
  flowId: z.string(),
  parentRunId: z.string().optional(),
  /** For a forked run: the run and the event it continues from (docs/evals.md, "Fork"). */
  forkedFrom: z
    .object({ runId: z.string(), seq: z.number().int() })
    .optional()
    .meta({ description: 'For a forked run: the run and the event it continues from.' }),
  /** The thread the run belongs to (docs/threads.md), when it is in one. */
  threadId: z.string().optional().meta({ description: 'The thread the run belongs to, if any.' }),
  /**
   * How to continue a run that failed for want of a working model (`MODEL_FAILED`, a top-level run):
   * the CLI command and the HTTP request that retry it with another model `M`.
   */
  continueWith: z
    .object({ command: z.string(), request: z.string() })
    .optional()
    .meta({
      description:
        'For a top-level run that failed MODEL_FAILED: the CLI command and the HTTP request that retry it with another model M.',
      example: {
        command: 'agent-runtime retry run_3f2a9c0d1b7e4a6f8c21 --model M',
        request: 'POST /v1/runs/run_3f2a9c0d1b7e4a6f8c21/retry {"model": "M"}',
      },
    }),
  /** A running run's MCP question held open for a person (docs/mcp.md, "Elicitation"). */
  held: z
    .object({
      id: z.string(),
      question: z.string(),
      elicitation: ElicitationPendingSchema,
      until: z.string(),
    })
    .optional()
    .meta({
      description:
        "A running run whose MCP server's question is held open until `until`: answer it like a suspended run's (`POST /v1/runs/{id}/answer`, `expect` = `id`).",
    }),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** The `continueWith` of a failed run's summary, or undefined when retrying with another model is not the way on. */
export function continueWith(
  run: Pick<SummarySource, 'runId' | 'status' | 'reason' | 'parentRunId'>,
): { command: string; request: string } | undefined {
  if (run.status !== 'failed' || run.reason !== 'MODEL_FAILED' || run.parentRunId !== null) return undefined;
  return {
    command: `agent-runtime retry ${run.runId} --model M`,
    request: `POST /v1/runs/${run.runId}/retry {"model": "M"}`,
  };
}

/**
 * The run summary; `O` is the type of its outputs, inferred from a code flow's zod output schemas
 * (src/flow/typed-outputs.ts).
 */
export type RunSummary<O = RunOutputs> = Omit<z.infer<typeof RunSummarySchema>, 'outputs'> & {
  outputs: O;
};

/** The fields of a stored run the summary is made of (the store's run head or its whole record). */
interface SummarySource {
  runId: string;
  status: RunStatus;
  suspension: z.infer<typeof SuspensionSchema> | null;
  reason: string | null;
  failedNode: string | null;
  message: string | null;
  usage: Usage;
  outputs: RunOutputs;
  flowId: string;
  parentRunId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A run's head (a listing: its `reply` and thread id, no state document) or its whole record. */
type StoredRun =
  | (SummarySource & { reply: string | null; threadId: string | null })
  | (SummarySource & { state: RunStateDoc });

/**
 * The summary of a stored run. A listing passes only the run's head (no state document, only its
 * `reply` and thread id), so its summaries carry no `forkedFrom`; the run's own summary (status, API
 * `GET /v1/runs/{id}`) does.
 */
export function summarize(record: StoredRun): RunSummary {
  const summary: RunSummary = {
    runId: record.runId,
    status: record.status,
    outputs: record.outputs,
    reply:
      record.status === 'completed'
        ? (('state' in record ? record.state.reply : record.reply) ?? null)
        : null,
    usage: record.usage,
    flowId: record.flowId,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
  if (record.status === 'suspended' && record.suspension) {
    summary.suspension = record.suspension;
  }
  if (record.reason !== null) summary.reason = record.reason;
  if (record.failedNode !== null) summary.failedNode = record.failedNode;
  if (record.message !== null) summary.message = record.message;
  if (record.parentRunId !== null) summary.parentRunId = record.parentRunId;
  const next = continueWith(record);
  if (next) summary.continueWith = next;
  const forked = 'state' in record ? record.state.forkedFrom : undefined;
  if (forked) summary.forkedFrom = { runId: forked.runId, seq: forked.seq };
  const held = 'state' in record && record.status === 'running' ? record.state.held : undefined;
  if (held && !held.answer) {
    const { id, elicitation, until } = held;
    summary.held = { id, question: elicitation.message, elicitation, until: new Date(until).toISOString() };
  }
  const threadId = 'state' in record ? record.state.thread?.id : record.threadId;
  if (threadId) summary.threadId = threadId;
  return summary;
}
