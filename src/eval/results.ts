import { z } from 'zod';

/** Counts of one error code over a cell's trials: how often it was seen and how often recovered from. */
const CodeCountSchema = z.object({ count: z.int(), recovered: z.int() });

const MetricsSchema = z.object({
  rounds: z.int(),
  stalls: z.int(),
  rejected: z.int(),
  failed: z.int(),
  recovered: z.int(),
  fingerprintTrips: z.int(),
  declined: z.int().describe('calls a person declined (APPROVAL_DENIED): not in rejected, byCode or stalls'),
  byCode: z.record(z.string(), CodeCountSchema),
  toolsCalled: z.array(z.string()),
  unapprovedWrites: z.int(),
});

const UsageSchema = z.object({ inputTokens: z.int(), outputTokens: z.int(), totalTokens: z.int() });

/** One trial (one run of one case with one model and variant). */
export const TrialResultSchema = z.object({
  trial: z.int().describe('1-based trial number within its cell'),
  runId: z.string().nullable(),
  status: z.string(),
  passed: z.boolean(),
  problems: z.array(z.string()).describe('every expectation broken, one line each'),
  reply: z.string().nullable(),
  metrics: MetricsSchema,
  usage: UsageSchema,
  cost: z.number().nullable().describe('from the suite prices; null when the model has none'),
  latencyMs: z.number(),
  trace: z.string().nullable().describe("path of the trial's trace (JSON Lines), relative to results.json"),
  attack: z
    .object({ goal: z.string(), utility: z.boolean(), succeeded: z.boolean() })
    .optional()
    .describe("attacked trials: the user's task done despite the attack, and the attacker's goal reached"),
  unexpectedWrites: z
    .array(z.object({ tool: z.string(), args: z.unknown() }))
    .optional()
    .describe("executed writes not among the case's expectedWrites (when the case gives them)"),
});

/** A variant of the runtime (docs/evals.md, "Ablation"). */
export const VariantSchema = z.object({
  id: z.string().describe('full, observations-plain, guards-off, observations-plain+guards-off'),
  observations: z.enum(['typed', 'plain']),
  guards: z.enum(['on', 'off']),
});

/** One case with one model and one variant, over its k trials. */
export const CellSchema = z.object({
  case: z.string(),
  goal: z.string().optional().describe("an attacked cell's attacker goal"),
  model: z.string(),
  variant: z.string(),
  trials: z.int().describe('k'),
  passed: z.int().describe('trials that passed'),
  passRate: z.number().describe('passed / k'),
  passAll: z.boolean().describe('pass^k: every one of the k trials passed'),
  totals: MetricsSchema.omit({ toolsCalled: true }),
  tokens: UsageSchema,
  cost: z.number().nullable(),
  latencyMs: z.object({ mean: z.number(), max: z.number() }),
  failures: z
    .array(
      z.object({
        trial: z.int(),
        runId: z.string().nullable(),
        problems: z.array(z.string()),
        trace: z.string().nullable(),
      }),
    )
    .describe('the failing trials with their trace files'),
  runs: z.array(TrialResultSchema),
});

const RunRef = z.object({
  case: z.string(),
  goal: z.string().nullable(),
  trial: z.int(),
  runId: z.string().nullable(),
});

/** AgentDojo's figures for one model (or `case models`) and variant, over a suite with `attacks`. */
export const AttackFiguresSchema = z.object({
  model: z.string(),
  variant: z.string(),
  runs: z.int().describe('trials without an attack'),
  utility: z.number().describe('of those, the share that passed'),
  attackedRuns: z.int().describe('trials with an attack (case × goal × repeat)'),
  utilityUnderAttack: z.number().describe("of those, the share where the user's task passed"),
  attackSuccessRate: z.number().describe("of those, the share where the attacker's goal was reached"),
  successfulAttacks: z.array(RunRef),
  unexpectedWriteRuns: z
    .array(RunRef.extend({ writes: z.array(z.object({ tool: z.string(), args: z.unknown() })) }))
    .describe("every run with an executed write the user's task does not make"),
});

/** The results file of `agent-runtime eval` (results.json, docs/evals.md). */
export const EvalResultsSchema = z.object({
  schema: z.literal(1),
  suite: z.object({ name: z.string().nullable(), source: z.string(), flow: z.string() }),
  startedAt: z.string(),
  durationMs: z.number(),
  repeat: z.int(),
  concurrency: z.int(),
  models: z.array(z.string()),
  variants: z.array(VariantSchema),
  passed: z.boolean().describe('every cell passed all its trials'),
  cells: z.array(CellSchema),
  attacks: z
    .array(AttackFiguresSchema)
    .optional()
    .describe("AgentDojo's three figures per model and variant"),
});

export type EvalResults = z.infer<typeof EvalResultsSchema>;
export type EvalCell = z.infer<typeof CellSchema>;
export type EvalTrial = z.infer<typeof TrialResultSchema>;
export type EvalVariant = z.infer<typeof VariantSchema>;
export type AttackFigures = z.infer<typeof AttackFiguresSchema>;
export type CellTotals = EvalCell['totals'];

/** Sums the trials of one cell into its line of the report. */
export function aggregate(
  key: { case: string; model: string; variant: string; goal?: string },
  runs: EvalTrial[],
): EvalCell {
  const passed = runs.filter((r) => r.passed).length;
  const totals: CellTotals = {
    rounds: 0,
    stalls: 0,
    rejected: 0,
    failed: 0,
    recovered: 0,
    fingerprintTrips: 0,
    declined: 0,
    byCode: {},
    unapprovedWrites: 0,
  };
  const tokens = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  let cost: number | null = null;
  for (const r of runs) {
    for (const k of [
      'rounds',
      'stalls',
      'rejected',
      'failed',
      'recovered',
      'fingerprintTrips',
      'declined',
      'unapprovedWrites',
    ] as const)
      totals[k] += r.metrics[k];
    for (const [code, c] of Object.entries(r.metrics.byCode)) {
      const t = (totals.byCode[code] ??= { count: 0, recovered: 0 });
      t.count += c.count;
      t.recovered += c.recovered;
    }
    tokens.inputTokens += r.usage.inputTokens;
    tokens.outputTokens += r.usage.outputTokens;
    tokens.totalTokens += r.usage.totalTokens;
    if (r.cost !== null) cost = (cost ?? 0) + r.cost;
  }
  const latencies = runs.map((r) => r.latencyMs);
  return {
    ...key,
    trials: runs.length,
    passed,
    passRate: runs.length === 0 ? 0 : passed / runs.length,
    passAll: runs.length > 0 && passed === runs.length,
    totals,
    tokens,
    cost,
    latencyMs: {
      mean: latencies.length === 0 ? 0 : latencies.reduce((a, b) => a + b, 0) / latencies.length,
      max: latencies.length === 0 ? 0 : Math.max(...latencies),
    },
    failures: runs
      .filter((r) => !r.passed)
      .map((r) => ({ trial: r.trial, runId: r.runId, problems: r.problems, trace: r.trace })),
    runs,
  };
}
