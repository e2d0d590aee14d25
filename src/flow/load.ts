import { dirname, isAbsolute, resolve } from 'node:path';
import type { CodeStep } from '../domain/code-step.js';
import type { EdgeCondition } from '../domain/edge-condition.js';
import { FlowSchema, type Flow } from '../domain/flow.js';
import { codeNodeProblems, withCodeSources, withCodeSteps } from './code-steps.js';
import { conditionProblems, withEdgeConditions } from './edge-conditions.js';
import { confinedPath, InputFileError, readInputFile } from '../fs/input-file.js';
import { checkShape } from '../fs/yaml-limits.js';
import { displayName, hiddenOrPackage, notFound, refusedDelegate, unreadable } from './delegate-files.js';
import { FlowError, formatPath, type FlowProblem, type RawProblem } from './problems.js';
import { isFlowDocument } from './recognise.js';
import { schemaProblems } from './schema-issues.js';
import { budgetProblems } from './semantic-budget.js';
import { graphProblems } from './semantic-graph.js';
import { parallelProblems } from './semantic-parallel.js';
import { outputSchemaProblems } from './semantic-outputs.js';
import { toolProblems } from './semantic-tools.js';
import { serverContentProblems } from './semantic-server-content.js';
import { noPositions, parseSourceAsync, type Locator } from './source.js';
import type { CodeFlowInput, FlowOutputs, RunOutputs } from './typed-outputs.js';
import { withJsonSchemas } from './zod-outputs.js';

/** Types only (never a value): the key under which a loaded flow carries the type of its runs' outputs. */
export declare const OUTPUTS_TYPE: unique symbol;

/**
 * A flow ready to run: validated, defaults applied, with the folder its relative paths resolve against.
 * `O` is the type of its runs' outputs (src/flow/typed-outputs.ts), inferred for code flows.
 */
export interface LoadedFlow<O = RunOutputs> {
  readonly flow: Flow;
  /** The flow file's folder, or the `baseDir` given for a flow object; null when neither exists. */
  readonly dir: string | null;
  /** The flow file's absolute path; null for a flow given as an object or text. */
  readonly path: string | null;
  /** The functions of its code nodes by node id (docs/flows.md, "Code nodes"); absent: none. */
  readonly code?: ReadonlyMap<string, CodeStep>;
  /** The function `when`s of its edges by edge index (docs/flows.md, "Flows in code"); absent: none. */
  readonly conditions?: ReadonlyMap<number, EdgeCondition>;
  /** Never set: carries `O` for `runtime.start`'s result type. */
  readonly [OUTPUTS_TYPE]?: O;
}

/** Options of `loadFlow`. */
export interface LoadFlowOptions {
  /** For a flow object or text: the folder relative paths resolve against (default: the current directory). */
  readonly baseDir?: string;
  /** For a flow object or text: the name problems are reported under (default `<inline>`). */
  readonly name?: string;
  /** Tools the host provides besides MCP servers (local tools), which policies may name. */
  readonly knownTools?: Iterable<string>;
  /**
   * For a flow that came from a request: delegate flow files must lie inside this folder (after
   * resolving `..` and links); others are problems, and are not read. `null`: a request's flow on a
   * server with no flows folder, which may not delegate at all (no file is looked at).
   */
  readonly confineTo?: string | null;
  /** The size cap of the files read (the flow file, its delegates); default AGENT_RUNTIME_MAX_FILE_BYTES of the process. */
  readonly maxFileBytes?: number;
}

/** Everything learnt while loading: the flow when it is valid, the problems, and where things are. */
export interface FlowInspection {
  readonly loaded?: LoadedFlow;
  readonly problems: readonly FlowProblem[];
  /** The name problems of this file are reported under. */
  readonly file: string;
  /** Places a path of this file at its line and column (when the flow came from text). */
  readonly locate: Locator;
}

/**
 * Loads a flow from a YAML/JSON file path or from a flow object (docs/flows.md; README.md): parses, validates the
 * structure (unknown keys are errors), applies defaults, then checks the meaning (ids, edges,
 * expressions, templates, tools, delegates, input schema). Throws a `FlowError` listing every problem
 * found; never anything else for bad input.
 */
export async function loadFlow(source: string, options?: LoadFlowOptions): Promise<LoadedFlow>;
export async function loadFlow<const F extends CodeFlowInput>(
  source: F,
  options?: LoadFlowOptions,
): Promise<LoadedFlow<FlowOutputs<F>>>;
export async function loadFlow(source: string | object, options?: LoadFlowOptions): Promise<LoadedFlow>;
export async function loadFlow(source: string | object, options: LoadFlowOptions = {}): Promise<LoadedFlow> {
  const inspection = await inspectFlow(source, options);
  if (!inspection.loaded || inspection.problems.length > 0) throw new FlowError(inspection.problems);
  return inspection.loaded;
}

/** Like `loadFlow` for a flow given as YAML/JSON text (e.g. an HTTP request body). */
export async function loadFlowText(text: string, options: LoadFlowOptions = {}): Promise<LoadedFlow> {
  const inspection = await inspectText(
    text,
    options.name ?? '<inline>',
    null,
    baseOf(options),
    options,
    new Set(),
  );
  if (!inspection.loaded || inspection.problems.length > 0) throw new FlowError(inspection.problems);
  return inspection.loaded;
}

/** Loads without throwing: the problems and, when there are none, the flow. Used by `validateFlow`. */
export async function inspectFlow(
  source: string | object,
  options: LoadFlowOptions = {},
  visiting: ReadonlySet<string> = new Set(),
): Promise<FlowInspection> {
  if (typeof source !== 'string') {
    const file = options.name ?? '<inline>';
    // Zod output schemas of a code flow become JSON Schema first: the flow is data from here on.
    // So are the functions of its code nodes: taken out here, kept beside the flow.
    const { data: plain, steps } = withCodeSteps(source);
    const { data: noFunctions, conditions } = withEdgeConditions(plain);
    const { data, problems: zod } = withJsonSchemas(noFunctions);
    const shape = checkShape(data);
    if (shape) return { problems: [{ file, path: '', message: shape.message }], file, locate: noPositions };
    const base = baseOf(options);
    const inline = { steps, conditions };
    const inspection = await inspectData(data, file, noPositions, null, base, options, visiting, inline);
    if (zod.length === 0) return inspection;
    return { ...inspection, problems: [...zod.map(placer(file, noPositions)), ...inspection.problems] };
  }
  const path = resolve(source);
  let text: string;
  try {
    text = await readInputFile(path, fileCap(options));
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    const reason = error.code === 'NOT_FOUND' ? 'file not found' : error.message;
    return {
      problems: [
        {
          file: source,
          path: '',
          message: `cannot read the flow: ${reason}; expected a readable YAML or JSON file`,
        },
      ],
      file: source,
      locate: noPositions,
    };
  }
  return inspectText(text, source, path, dirname(path), options, visiting);
}

function baseOf(options: LoadFlowOptions): string | null {
  return options.baseDir === undefined ? null : resolve(options.baseDir);
}

async function inspectText(
  text: string,
  file: string,
  path: string | null,
  dir: string | null,
  options: LoadFlowOptions,
  visiting: ReadonlySet<string>,
): Promise<FlowInspection> {
  const parsed = await parseSourceAsync(text);
  if (parsed.syntax.length > 0) {
    const problems = parsed.syntax.map((s) => ({
      file,
      path: '',
      ...(s.position ? { line: s.position.line, column: s.position.column } : {}),
      message: s.message,
    }));
    return { problems, file, locate: parsed.locate };
  }
  return inspectData(parsed.data, file, parsed.locate, path, dir, options, visiting);
}

/** The functions a flow written in code gave: code nodes' `run` by node id, `when`s by edge index. */
interface InlineCode {
  readonly steps: ReadonlyMap<string, CodeStep>;
  readonly conditions: ReadonlyMap<number, EdgeCondition>;
}

async function inspectData(
  data: unknown,
  file: string,
  locate: Locator,
  path: string | null,
  dir: string | null,
  options: LoadFlowOptions,
  visiting: ReadonlySet<string>,
  inline: InlineCode = { steps: new Map(), conditions: new Map() },
): Promise<FlowInspection> {
  const place = placer(file, locate);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return {
      problems: [place({ path: [], message: 'expected a mapping with id, nodes and the other flow keys' })],
      file,
      locate,
    };
  }
  const parsed = FlowSchema.safeParse(withCodeSources(data));
  if (!parsed.success) {
    const problems = schemaProblems(FlowSchema, parsed.error.issues, data).map(place).sort(byPosition);
    return { problems, file, locate };
  }
  const flow = parsed.data;
  const raw: RawProblem[] = [
    ...graphProblems(flow),
    ...parallelProblems(flow),
    ...budgetProblems(flow),
    ...toolProblems(flow, new Set(options.knownTools ?? [])),
    ...serverContentProblems(flow),
    ...outputSchemaProblems(flow),
  ];
  const { steps, conditions } = inline;
  const code = await codeNodeProblems(flow, { fromRequest: options.confineTo !== undefined, dir, steps });
  raw.push(...code.problems, ...conditionProblems(flow, conditions));
  const nested = await delegateProblems(flow, dir ?? process.cwd(), path, visiting, options, raw);
  const problems = [...raw.map(place).sort(byPosition), ...nested];
  const loaded: LoadedFlow = {
    flow,
    dir,
    path,
    ...(code.steps.size > 0 ? { code: code.steps } : {}),
    ...(conditions.size > 0 ? { conditions } : {}),
  };
  return { loaded, problems, file, locate };
}

/** Orders problems of one file by line and column (those without a position keep their order). */
export function byPosition(a: FlowProblem, b: FlowProblem): number {
  return (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0);
}

/** Turns raw problems of one file into placed ones. */
export function placer(file: string, locate: Locator): (raw: RawProblem) => FlowProblem {
  return (raw) => {
    const at = locate(raw.path, raw.atKey);
    return {
      file,
      path: formatPath(raw.path),
      ...(at ? { line: at.line, column: at.column } : {}),
      message: raw.message,
    };
  };
}

/**
 * Delegate flows (docs/observations.md) exist relative to the flow's folder, load without problems (theirs are
 * reported under their own file), and have distinct ids within one node, since the model names them
 * by id. A flow delegating back to itself or an ancestor is not loaded again.
 */
async function delegateProblems(
  flow: Flow,
  base: string,
  self: string | null,
  visiting: ReadonlySet<string>,
  options: LoadFlowOptions,
  raw: RawProblem[],
): Promise<FlowProblem[]> {
  const nested: FlowProblem[] = [];
  const chain = new Set(visiting);
  if (self) chain.add(self);
  for (const [i, node] of flow.nodes.entries()) {
    const ids = new Map<string, string>();
    for (const [j, delegate] of node.delegates.entries()) {
      const at = ['nodes', i, 'delegates', j];
      const target = delegateTarget(delegate, base, options);
      if (typeof target !== 'string') {
        raw.push({ path: at, message: target.problem });
        continue;
      }
      if (chain.has(target)) continue;
      const child = await inspectDelegate(target, delegate, options, chain);
      if ('problem' in child) {
        // A request's flow hears one answer whatever the cause: which one would map the flows folder.
        raw.push({ path: at, message: confined(options) ? refusedDelegate(delegate) : child.problem });
        continue;
      }
      nested.push(...child.problems);
      const id = child.loaded?.flow.id;
      if (id === undefined) continue;
      const other = ids.get(id);
      if (other !== undefined)
        raw.push({
          path: at,
          message: `flow id "${id}" is also the id of ${other}; expected delegates with distinct ids (the model names them by id)`,
        });
      ids.set(id, delegate);
    }
  }
  return nested;
}

/**
 * The file a delegate names, or why it is refused. For a flow from a request (`confineTo`) it must
 * lie inside that folder, and not in a hidden file or folder (`.env`, `.git/`) or `node_modules`:
 * those are never flows the operator put there for requests to use.
 */
function delegateTarget(
  delegate: string,
  base: string,
  options: LoadFlowOptions,
): string | { problem: string } {
  const target = isAbsolute(delegate) ? delegate : resolve(base, delegate);
  if (options.confineTo === undefined) return target;
  if (options.confineTo === null)
    return {
      problem: `flows sent over HTTP may delegate only to flow files of the server's --flows DIR, and this server has none`,
    };
  let real: string;
  try {
    real = confinedPath(options.confineTo, target, 'delegate flow', delegate);
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    return { problem: refusedDelegate(delegate) };
  }
  if (hiddenOrPackage(options.confineTo, target) || hiddenOrPackage(options.confineTo, real))
    return { problem: refusedDelegate(delegate) };
  return real;
}

/** True when the flow came from a request and its delegates must lie in the flows folder. */
function confined(options: LoadFlowOptions): boolean {
  return typeof options.confineTo === 'string';
}

/**
 * Reads and inspects a delegate flow file. A file that cannot be read, does not parse, or is not shaped
 * like a flow (a mapping with `id` and `nodes`) is one problem of the delegating flow that names the
 * file and never quotes it: a delegate may point at any file (`/etc/passwd`, a `.env`), and parse
 * errors or unknown keys would echo its content. A flow-shaped file reports its own problems.
 */
async function inspectDelegate(
  target: string,
  written: string,
  options: LoadFlowOptions,
  chain: ReadonlySet<string>,
): Promise<FlowInspection | { problem: string }> {
  // A request's flow hears the delegate as it wrote it, wherever it resolved: a name shortened for
  // files inside the flows folder alone would tell which guesses of the folder's path were right.
  const name = confined(options) ? written : displayName(target, options.confineTo ?? undefined);
  let text: string;
  try {
    text = await readInputFile(target, fileCap(options));
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    return { problem: error.code === 'NOT_FOUND' ? notFound(name) : unreadable(name, error) };
  }
  const parsed = await parseSourceAsync(text);
  if (parsed.syntax.length > 0 || !isFlowDocument(parsed.data))
    return {
      problem: `${JSON.stringify(name)} is not a valid flow file; expected a YAML or JSON flow with id and nodes (validate it on its own to see why)`,
    };
  const childOptions: LoadFlowOptions = {
    knownTools: options.knownTools ?? [],
    ...(options.confineTo !== undefined ? { confineTo: options.confineTo } : {}),
  };
  return inspectData(parsed.data, name, parsed.locate, target, dirname(target), childOptions, chain);
}

function fileCap(options: LoadFlowOptions): { maxBytes?: number } {
  return options.maxFileBytes !== undefined ? { maxBytes: options.maxFileBytes } : {};
}
