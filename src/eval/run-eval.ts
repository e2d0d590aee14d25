import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Ablation } from '../engine/ablation.js';
import { loadFlow, type LoadedFlow } from '../flow/load.js';
import type { ObservationStyle } from '../loop/render.js';
import { absolutizeModel, type ModelSpec } from '../model/resolve.js';
import type { CreateRuntimeOptions } from '../runtime/create.js';
import type { Usage } from '../store/store.js';
import type { LocalTool } from '../tools/tool.js';
import type { UserBuiltin } from '../tools/builtin/user.js';
import type { Guard } from '../tools/user-guards/define.js';
import { renderReport } from './report-html.js';
import { aggregate, type EvalCell, type EvalResults, type EvalTrial, type EvalVariant } from './results.js';
import { EvalSuiteError, loadSuiteFile, type LoadedSuite, type SuiteCase } from './suite.js';
import { modelName, runTrial } from './trial.js';
import { attackText, type AttackGoal } from './attacks.js';
import { attackFigures } from './attack-figures.js';

/** A model to evaluate: a spec (`openai:gpt-4.1`, `scripted:turns.yaml`, a client) with the name the report shows. */
export interface EvalModel {
  name: string;
  model: ModelSpec;
}

/** Options of `runEval` (the CLI's flags, docs/evals.md). */
export interface EvalOptions {
  /** Models for every case (each case with each); default: the case's `model`, the suite's, else the flow's. */
  models?: (ModelSpec | EvalModel)[];
  /** Trials per case and model (default: the suite's `repeat`, else 1). */
  repeat?: number;
  /** Trials run at once (default: the suite's `concurrency`, else 1). */
  concurrency?: number;
  /**
   * The runtime variants to compare, side by side (default `['full']`): `full`, `observations-plain`,
   * `guards-off`, `observations-plain+guards-off` (docs/evals.md, "Ablation").
   */
  variants?: EvalVariantName[];
  /** Local tools (`defineTool`) the flow's nodes may name, in every trial and in setup/verify calls. */
  tools?: readonly LocalTool[];
  /** User guards (`defineGuard`), asked about every tool call of every trial (docs/interceptors.md). */
  guards?: readonly Guard[];
  /** The application's own builtins (`defineBuiltin`) the flow's nodes may name (docs/builtins.md). */
  builtins?: readonly UserBuiltin[];
  /** Folder for results.json, report.html and traces/ (null: write nothing). */
  out?: string | null;
  /** Model providers other than `scripted:` (as `createRuntime`'s). */
  providers?: CreateRuntimeOptions['providers'];
  /** Told about each trial as it ends (progress). */
  onTrial?: (cell: { case: string; model: string; variant: string; goal?: string }, trial: EvalTrial) => void;
}

/** The names of the runtime variants an eval compares (`--variant`). */
export const EVAL_VARIANTS = [
  'full',
  'observations-plain',
  'guards-off',
  'observations-plain+guards-off',
] as const;

/** One of `EVAL_VARIANTS`. */
export type EvalVariantName = (typeof EVAL_VARIANTS)[number];

interface Task {
  key: { case: string; model: string; variant: string; goal?: string };
  c: SuiteCase;
  model: ModelSpec;
  variant: EvalVariant;
  trial: number;
  /** The model the attack figures count this trial under: the model given for every case, or `case models`. */
  group: string;
  /** An attacked trial's goal. */
  goal?: AttackGoal;
}

/**
 * Runs a suite: every case `repeat` times with every model and variant, at most `concurrency` trials at
 * once, each trial in its own in-memory store and runtime. Returns the results (and, with `out`,
 * writes results.json, report.html and each trial's trace). Throws EvalSuiteError (or a FlowError,
 * RunError) for a suite that cannot run; a failing trial is a result, not an error.
 */
export async function runEval(source: string | LoadedSuite, options: EvalOptions = {}): Promise<EvalResults> {
  const loaded = typeof source === 'string' ? loadSuiteFile(source) : source;
  const { suite } = loaded;
  const tools = [...(options.tools ?? [])];
  const guards = guardsOf(options.guards);
  const flow = await loadFlow(resolve(loaded.dir, suite.flow), {
    knownTools: [...tools.map((t) => t.descriptor.name), ...(options.builtins ?? []).map((b) => b.name)],
  });
  const repeat = options.repeat ?? suite.repeat ?? 1;
  const concurrency = options.concurrency ?? suite.concurrency ?? 1;
  const variants = variantsOf(options);
  const out = options.out ? resolve(options.out) : null;
  if (out) mkdirSync(join(out, 'traces'), { recursive: true });
  const tasks = plan(loaded, flow, options, variants, repeat);
  const started = new Date();
  const trials = await pool(tasks, concurrency, async (task): Promise<EvalTrial> => {
    const traceFile = out ? join(out, 'traces', traceName(task)) : null;
    const attacks = suite.attacks;
    const result = await runTrial({
      flow,
      case: task.c,
      model: task.model,
      ablation: ablationOf(task.variant),
      traceFile,
      tools,
      guards,
      ...(options.builtins ? { builtins: options.builtins } : {}),
      ...(options.providers ? { providers: options.providers } : {}),
      ...(task.goal && attacks
        ? {
            attack: {
              goal: task.goal,
              text: attackText(attacks, task.goal),
              vectors: attacks.vectors.filter((v) => task.c.vectors?.includes(v.id)),
            },
          }
        : {}),
    });
    const trial: EvalTrial = {
      trial: task.trial,
      ...result,
      cost: costOf(suite.prices, task.key.model, result.usage),
      trace: traceFile && out ? relative(out, traceFile) : null,
    };
    options.onTrial?.(task.key, trial);
    return trial;
  });
  const cells = cellsOf(tasks, trials);
  const results: EvalResults = {
    schema: 1,
    suite: { name: suite.name ?? null, source: loaded.source, flow: flow.flow.id },
    startedAt: started.toISOString(),
    durationMs: Date.now() - started.getTime(),
    repeat,
    concurrency,
    models: [...new Set(tasks.map((t) => t.key.model))],
    variants,
    passed: cells.every((c) => c.passAll),
    cells,
    ...(suite.attacks ? { attacks: attackFigures(tasks, trials) } : {}),
  };
  if (out) {
    writeFileSync(join(out, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(join(out, 'report.html'), renderReport(results));
  }
  return results;
}

function plan(
  loaded: LoadedSuite,
  flow: LoadedFlow,
  options: EvalOptions,
  variants: EvalVariant[],
  repeat: number,
): Task[] {
  const tasks: Task[] = [];
  for (const c of loaded.suite.cases) {
    const models = modelsFor(loaded, flow, c, options);
    if (models.length === 0)
      throw new EvalSuiteError(
        `suite ${loaded.source}: case ${c.id} has no model: give --model, \`model\` in the case or suite, or one in the flow`,
      );
    const group = c.model && !(options.models && options.models.length > 0) ? 'case models' : null;
    const goals = c.vectors && c.vectors.length > 0 ? (loaded.suite.attacks?.goals ?? []) : [];
    for (const m of models)
      for (const variant of variants) {
        for (let trial = 1; trial <= repeat; trial += 1)
          tasks.push({
            key: { case: c.id, model: m.name, variant: variant.id },
            c,
            model: m.model,
            variant,
            trial,
            group: group ?? m.name,
          });
        for (const goal of goals) {
          const attacker = attackerModel(loaded, c, goal, m);
          for (let trial = 1; trial <= repeat; trial += 1)
            tasks.push({
              key: { case: c.id, model: attacker.name, variant: variant.id, goal: goal.id },
              c,
              model: attacker.model,
              variant,
              trial,
              group: group ?? m.name,
              goal,
            });
        }
      }
  }
  return tasks;
}

/** The model of an attacked trial: the case's `attackModel` with the goal's id in place, else the case's model. */
function attackerModel(loaded: LoadedSuite, c: SuiteCase, goal: AttackGoal, m: EvalModel): EvalModel {
  if (!c.attackModel) return m;
  const spec = c.attackModel.split('{goal}').join(goal.id);
  return { name: spec, model: absolutizeModel(spec, loaded.dir) };
}

/** The models a case runs with: the options', else the case's, else the suite's, else the flow's. */
function modelsFor(loaded: LoadedSuite, flow: LoadedFlow, c: SuiteCase, options: EvalOptions): EvalModel[] {
  if (options.models && options.models.length > 0)
    return options.models.map((m) => (isEvalModel(m) ? m : { name: modelName(m), model: m }));
  const fromSuite = loaded.suite.model;
  const specs = c.model ? [c.model] : fromSuite ? [fromSuite].flat() : [];
  if (specs.length > 0) return specs.map((s) => ({ name: s, model: absolutizeModel(s, loaded.dir) }));
  if (flow.flow.model)
    return [{ name: flow.flow.model, model: absolutizeModel(flow.flow.model, flow.dir ?? loaded.dir) }];
  return [];
}

function isEvalModel(m: ModelSpec | EvalModel): m is EvalModel {
  return typeof m === 'object' && m !== null && 'name' in m && 'model' in m && typeof m.name === 'string';
}

function variantsOf(options: EvalOptions): EvalVariant[] {
  const names = [...new Set<EvalVariantName>(options.variants ?? ['full'])];
  return names.map((id): EvalVariant => {
    if (!(EVAL_VARIANTS as readonly string[]).includes(id))
      throw new EvalSuiteError(`variants: ${JSON.stringify(id)} is not one of ${EVAL_VARIANTS.join(', ')}`);
    const observations: ObservationStyle = id.startsWith('observations-plain') ? 'plain' : 'typed';
    return { id, observations, guards: id.endsWith('guards-off') ? 'off' : 'on' };
  });
}

/** The user guards of the options; the former ablation spelling (`guards: ['off']`) is refused, naming `variants`. */
function guardsOf(guards: EvalOptions['guards']): Guard[] {
  if (guards === undefined) return [];
  const list: readonly unknown[] | null = Array.isArray(guards) ? (guards as readonly unknown[]) : null;
  if (list === null) throw new EvalSuiteError('guards must be a list of guards made with defineGuard');
  for (const g of list)
    if (g === 'on' || g === 'off')
      throw new EvalSuiteError(
        `guards takes guards made with defineGuard; the ablation is variants: ['guards-off'] (was guards: ['${g}'])`,
      );
  return [...guards];
}

function ablationOf(variant: EvalVariant): Ablation {
  return { observations: variant.observations, guards: variant.guards };
}

function costOf(prices: LoadedSuite['suite']['prices'], model: string, usage: Usage): number | null {
  const price = prices?.[model];
  if (!price) return null;
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}

function traceName(task: Task): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(-60);
  const goal = task.key.goal ? `@${safe(task.key.goal)}` : '';
  return `${safe(task.key.case)}${goal}--${safe(task.key.model)}--${safe(task.key.variant)}--${task.trial}.jsonl`;
}

/** Runs `work` over `items` with at most `limit` at once; results in item order. */
async function pool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next;
      next += 1;
      results[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function cellsOf(tasks: readonly Task[], trials: readonly EvalTrial[]): EvalCell[] {
  const groups = new Map<string, { key: Task['key']; runs: EvalTrial[] }>();
  tasks.forEach((task, i) => {
    const id = JSON.stringify([task.key.case, task.key.model, task.key.variant, task.key.goal ?? null]);
    const group = groups.get(id) ?? { key: task.key, runs: [] };
    group.runs.push(trials[i] as EvalTrial);
    groups.set(id, group);
  });
  return [...groups.values()].map((g) => aggregate(g.key, g.runs));
}
