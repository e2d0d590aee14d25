import { resolve } from 'node:path';
import { stringify } from 'yaml';
import { caseFromRun } from '../eval/from-run.js';
import { EVAL_VARIANTS, runEval, type EvalOptions, type EvalVariantName } from '../eval/run-eval.js';
import type { AttackFigures, EvalCell, EvalResults } from '../eval/results.js';
import { EvalSuiteError, loadSuiteFile, type LoadedSuite } from '../eval/suite.js';
import { loadFlow } from '../flow/load.js';
import { absolutizeModel } from '../model/resolve.js';
import { createRuntime } from '../runtime/create.js';
import { resolveDbUrl } from '../store/open.js';
import { EXTENSIONS, UsageError, parse, str, strings, type Parsed } from './args.js';
import { loadExtensions, runtimeExtensions, toolNames } from './extensions.js';
import { preflight } from './preflight.js';

const OPTIONS = {
  ...EXTENSIONS,
  model: { type: 'string', multiple: true },
  repeat: { type: 'string' },
  concurrency: { type: 'string' },
  out: { type: 'string' },
  variant: { type: 'string', multiple: true },
  // Former ablation flag, refused with the new spelling named (`refuseAblationSpelling`).
  observations: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  'from-run': { type: 'string' },
  db: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * `agent-runtime eval`: returns the exit code (0 all passed, 1 one failed, 2 suite or usage error).
 * `--tools` / `--guards` modules are loaded as by `run`, and the suite's flow is checked with them
 * (every tool it names exists, every server answers) before the first trial.
 */
export async function evalCommand(argv: string[]): Promise<number> {
  const parsed = parse('eval', argv, OPTIONS, { min: 0, max: 1, names: 'SUITE.yaml' });
  const fromRunId = str(parsed, 'from-run');
  if (fromRunId !== undefined) return fromRun(fromRunId, str(parsed, 'db'));
  if (parsed.positionals.length === 0) throw new UsageError('eval: missing SUITE.yaml');
  refuseAblationSpelling(parsed);
  const variants = variantsOf(parsed);
  const extensions = await loadExtensions(parsed);
  const out = resolve(str(parsed, 'out') ?? 'eval-results');
  const models = strings(parsed, 'model');
  const repeat = str(parsed, 'repeat');
  const concurrency = str(parsed, 'concurrency');
  const options: EvalOptions = {
    out,
    ...(models.length > 0 ? { models: models.map((m) => absolutizeModel(m, process.cwd())) } : {}),
    ...(repeat !== undefined ? { repeat: count('repeat', repeat) } : {}),
    ...(concurrency !== undefined ? { concurrency: count('concurrency', concurrency) } : {}),
    ...(variants.length > 0 ? { variants } : {}),
    ...runtimeExtensions(extensions),
    onTrial: (cell, trial) =>
      process.stderr.write(
        `${trial.passed ? 'pass' : 'FAIL'}  ${cell.case}${cell.goal ? ` under ${cell.goal}` : ''} · ${cell.model} · ${cell.variant} · trial ${trial.trial}` +
          `${trial.passed ? '' : `: ${trial.problems.join('; ')}`}\n`,
      ),
  };
  let results: EvalResults;
  try {
    const suite = loadSuiteFile(parsed.positionals[0] as string);
    await checkFlow(suite, toolNames(extensions));
    results = await runEval(suite, options);
  } catch (error) {
    if (error instanceof EvalSuiteError) throw new UsageError(`eval: ${error.message}`, { cause: error });
    throw error;
  }
  if (parsed.values.json === true) process.stdout.write(`${JSON.stringify(results)}\n`);
  process.stderr.write(summaryTable(results.cells));
  if (results.attacks) process.stderr.write(attackLines(results.attacks));
  process.stderr.write(`results: ${resolve(out, 'results.json')}\nreport:  ${resolve(out, 'report.html')}\n`);
  return results.passed ? 0 : 1;
}

/** The suite's flow passes `validate` with its servers and the `--tools` tools, as before `run` (exit 2). */
async function checkFlow(suite: LoadedSuite, knownTools: string[]): Promise<void> {
  const path = resolve(suite.dir, suite.suite.flow);
  const loaded = await loadFlow(path, { knownTools });
  await preflight(path, loaded, undefined, knownTools);
}

/** `--guards on|off` and `--observations typed|plain` were the ablation flags: refused, naming `--variant`. */
function refuseAblationSpelling(parsed: Parsed): void {
  const observations = strings(parsed, 'observations', true);
  if (observations.length > 0)
    throw new UsageError(
      `eval: --observations is now --variant observations-plain (--variant full is the typed observations; repeatable or comma-separated)`,
    );
  for (const g of strings(parsed, 'guards'))
    if (g === 'on' || g === 'off')
      throw new UsageError(
        `eval: --guards ${g} is now --variant ${g === 'off' ? 'guards-off' : 'full'}; --guards takes a module of guards made with defineGuard, as for run`,
      );
}

function variantsOf(parsed: Parsed): EvalVariantName[] {
  const picked = strings(parsed, 'variant', true);
  for (const p of picked)
    if (!(EVAL_VARIANTS as readonly string[]).includes(p))
      throw new UsageError(
        `eval: --variant must be one of ${EVAL_VARIANTS.join(', ')}, not ${JSON.stringify(p)}`,
      );
  return picked as EvalVariantName[];
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
