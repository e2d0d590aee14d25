import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { caseFromRun } from '../eval/from-run.js';
import { runEval, type EvalOptions } from '../eval/run-eval.js';
import type { AttackFigures, EvalCell, EvalResults } from '../eval/results.js';
import { EvalSuiteError } from '../eval/suite.js';
import { absolutizeModel } from '../model/resolve.js';
import { createRuntime } from '../runtime/create.js';
import { resolveDbUrl } from '../store/open.js';
import { UsageError } from './args.js';

const OPTIONS = {
  model: { type: 'string', multiple: true },
  repeat: { type: 'string' },
  concurrency: { type: 'string' },
  out: { type: 'string' },
  observations: { type: 'string', multiple: true },
  guards: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  'from-run': { type: 'string' },
  db: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `agent-runtime eval`: returns the exit code (0 all passed, 1 one failed, 2 suite or usage error). */
export async function evalCommand(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`eval: ${(error as Error).message}`, { cause: error });
  }
  const { values, positionals } = parsed;
  if (values['from-run'] !== undefined) return fromRun(values['from-run'], values.db);
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? 'eval: missing SUITE.yaml'
        : `eval: unexpected argument ${JSON.stringify(positionals[1])}`,
    );
  const out = resolve(values.out ?? 'eval-results');
  const options: EvalOptions = {
    out,
    ...(values.model ? { models: values.model.map((m) => absolutizeModel(m, process.cwd())) } : {}),
    ...(values.repeat !== undefined ? { repeat: count('repeat', values.repeat) } : {}),
    ...(values.concurrency !== undefined ? { concurrency: count('concurrency', values.concurrency) } : {}),
    ...(values.observations
      ? { observations: choices('observations', values.observations, ['typed', 'plain'] as const) }
      : {}),
    ...(values.guards ? { guards: choices('guards', values.guards, ['on', 'off'] as const) } : {}),
    onTrial: (cell, trial) =>
      process.stderr.write(
        `${trial.passed ? 'pass' : 'FAIL'}  ${cell.case}${cell.goal ? ` under ${cell.goal}` : ''} · ${cell.model} · ${cell.variant} · trial ${trial.trial}` +
          `${trial.passed ? '' : `: ${trial.problems.join('; ')}`}\n`,
      ),
  };
  let results: EvalResults;
  try {
    results = await runEval(positionals[0] as string, options);
  } catch (error) {
    if (error instanceof EvalSuiteError) throw new UsageError(`eval: ${error.message}`, { cause: error });
    throw error;
  }
  if (values.json) process.stdout.write(`${JSON.stringify(results)}\n`);
  process.stderr.write(summaryTable(results.cells));
  if (results.attacks) process.stderr.write(attackLines(results.attacks));
  process.stderr.write(`results: ${resolve(out, 'results.json')}\nreport:  ${resolve(out, 'report.html')}\n`);
  return results.passed ? 0 : 1;
}

async function fromRun(runId: string, db: string | undefined): Promise<number> {
  const runtime = createRuntime({
    store: resolveDbUrl({ db }),
    logger: false,
    telemetry: false,
    env: process.env,
    cwd: process.cwd(),
  });
  try {
    const c = await caseFromRun(runtime, runId);
    process.stdout.write(stringify({ cases: [c] }));
    return 0;
  } finally {
    await runtime.close();
  }
}

function count(name: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`eval: --${name} must be a whole number ≥ 1, not ${JSON.stringify(raw)}`);
  return n;
}

function choices<T extends string>(name: string, raw: readonly string[], allowed: readonly T[]): T[] {
  const picked = raw.flatMap((r) => r.split(',')).map((r) => r.trim());
  for (const p of picked)
    if (!(allowed as readonly string[]).includes(p))
      throw new UsageError(`eval: --${name} must be ${allowed.join(' or ')}, not ${JSON.stringify(p)}`);
  return picked as T[];
}

function summaryTable(cells: readonly EvalCell[]): string {
  const lines = cells.map(
    (c) =>
      `${c.passAll ? 'PASS' : 'FAIL'}  ${c.passed}/${c.trials}  ${c.case}${c.goal ? ` under ${c.goal}` : ''} · ${c.model} · ${c.variant}` +
      `  (rejected ${c.totals.rejected}, failed ${c.totals.failed}, recovered ${c.totals.recovered}, rounds ${c.totals.rounds})`,
  );
  return `\n${lines.join('\n')}\n`;
}

/** AgentDojo's three figures per model and variant (docs/evals.md, "Attack evals"). */
function attackLines(figures: readonly AttackFigures[]): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  const lines = figures.map(
    (f) =>
      `attacks  ${f.model} · ${f.variant}: utility ${pct(f.utility)} (${f.runs}), under attack ${pct(f.utilityUnderAttack)}` +
      ` (${f.attackedRuns}), attack success ${pct(f.attackSuccessRate)}, runs with unexpected writes ${f.unexpectedWriteRuns.length}`,
  );
  return `${lines.join('\n')}\n`;
}
