import { LRUCache } from 'lru-cache';
import { AgentRuntimeError } from '../domain/agent-runtime-error.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import jsonata from 'jsonata';
import { enableLinearRegExps, linearTimeProblem } from '../domain/regex.js';
import { ExpressionSandbox, SandboxError } from './expression-sandbox.js';

/**
 * JSONata helpers (jsonata.org) for the flow's expressions: `path`, `okPath`, `pending`, `verify`,
 * `recover` and, later, edge `when`. Expressions are compiled once and cached by their text.
 */

/**
 * Why a flow's expression gave no value. The guards turn either into an observation of the call
 * (never a thrown failure of the run): the expression is the flow's, the data it met the tool's.
 */
export type ExpressionErrorCode =
  /** The text is not JSONata (a flow that skipped validation). */
  | 'COMPILE'
  /** JSONata failed while evaluating over the data given. */
  | 'EVALUATE';

/** A JSONata expression that does not compile or fails while evaluating. */
export class ExpressionError extends AgentRuntimeError {
  override readonly name = 'ExpressionError';
  declare readonly code: ExpressionErrorCode;

  constructor(
    code: ExpressionErrorCode,
    readonly expression: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(code, `JSONata expression ${JSON.stringify(expression)}: ${detail}`, options);
  }
}

/**
 * Bounds of one evaluation: a flow's expression may come from a request (a tenant's admin), so an
 * endless recursion, a deep one or a huge range fails the expression instead of holding the process:
 * at most 250 ms of evaluation, 200 nested evaluation steps, sequences of 1,000,000. A regex literal
 * runs as one step the budget cannot interrupt: JSONata compiles it without the `u` flag, so with
 * `enableLinearRegExps` one that backtracks excessively runs in linear time (unless it has flag `i`).
 */
export const EXPRESSION_LIMITS = { timeout: 250, stack: 200, sequence: 1_000_000 } as const;

/** Characters of expression text whose compiled forms are kept (a compiled form is ~35× its text). */
const MAX_CACHED_TEXT = 512 * 1024;
const cache = new LRUCache<string, jsonata.Expression>({
  maxSize: MAX_CACHED_TEXT,
  sizeCalculation: (_compiled, text) => Math.max(1, text.length),
});

/** Compiles an expression (cached); throws ExpressionError for a syntax error. */
export function compileExpression(expression: string): jsonata.Expression {
  const cached = cache.get(expression);
  if (cached) return cached;
  enableLinearRegExps();
  let compiled: jsonata.Expression;
  try {
    compiled = jsonata(expression, { ...EXPRESSION_LIMITS });
  } catch (error) {
    throw new ExpressionError('COMPILE', expression, errorText(error), { cause: error });
  }
  cache.set(expression, compiled);
  return compiled;
}

/** Whether the expressions evaluated in this async context (a run being driven) go to the sandbox, and whose run it is. */
const sandboxing = new AsyncLocalStorage<{ sandboxed: boolean; tenant: string | null }>();
let sandbox: ExpressionSandbox | null = null;

/**
 * Runs `body` with every expression it evaluates (edges, guards) sent to the expression sandbox when
 * `sandboxed` (a flow with `sandboxExpressions: true`, as every flow sent over HTTP is), else in process;
 * the sandbox serves tenants in turn.
 */
export function withExpressionSandbox<T>(sandboxed: boolean, tenant: string | null, body: () => T): T {
  return sandboxing.run({ sandboxed, tenant }, body);
}

/** Counts the time spent evaluating (in process, or by the sandbox's worker: never time spent waiting for it). */
export interface EvaluationMeter {
  ms: number;
}

/**
 * Evaluates an expression over `input` and returns plain JSON (JSONata's result sequences become
 * arrays; no match is `undefined`). Throws ExpressionError for a syntax or evaluation error. In the
 * sandbox (`options.sandboxed`, else as `withExpressionSandbox` says) it runs in a worker with a memory
 * ceiling and a 1 s deadline, without `$eval`.
 */
export async function evaluate(
  expression: string,
  input: unknown,
  options: { sandboxed?: boolean; meter?: EvaluationMeter } = {},
): Promise<unknown> {
  const scope = sandboxing.getStore();
  if (options.sandboxed ?? scope?.sandboxed ?? false) {
    // Compiled only in the worker: a compiled expression costs ~35× its text, not to be kept here.
    try {
      sandbox ??= new ExpressionSandbox(EXPRESSION_LIMITS);
      const { value, busyMs } = await sandbox.evaluate(expression, input, scope?.tenant ?? null);
      if (options.meter) options.meter.ms += busyMs;
      return value;
    } catch (error) {
      if (!(error instanceof SandboxError)) throw error;
      throw new ExpressionError('EVALUATE', expression, error.message, { cause: error });
    }
  }
  const compiled = compileExpression(expression);
  const started = options.meter ? Date.now() : 0;
  let result: unknown;
  try {
    result = (await compiled.evaluate(input)) as unknown;
  } catch (error) {
    throw new ExpressionError('EVALUATE', expression, errorText(error), { cause: error });
  } finally {
    if (options.meter) options.meter.ms += Date.now() - started;
  }
  return toPlain(result);
}

/**
 * Evaluates an expression as a condition with JSONata's `$boolean` rules: undefined, null, false, 0,
 * "", empty arrays and empty objects are false; an array is true when any member is true.
 */
export async function evaluateCondition(expression: string, input: unknown): Promise<boolean> {
  return truthy(await evaluate(expression, input));
}

/** JSONata's `$boolean` cast of a plain JSON value. */
export function truthy(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value !== '';
  if (Array.isArray(value)) return value.some(truthy);
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return false;
}

/** Evaluates each expression of a map (`verify.args`, `recover.args`) over the same input. */
export async function evaluateMap(
  expressions: Readonly<Record<string, string>>,
  input: unknown,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, expression] of Object.entries(expressions)) {
    const value = await evaluate(expression, input);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function toPlain(value: unknown): unknown {
  if (value === undefined || isFunction(value)) return undefined;
  const text = JSON.stringify(value, withoutFunctions);
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

/** A JSONata function (`function($x){ $x }`: an object that refers to its scope) or a native one. */
function isFunction(value: unknown): boolean {
  return (
    typeof value === 'function' ||
    (typeof value === 'object' &&
      value !== null &&
      (value as { _jsonata_lambda?: unknown })._jsonata_lambda === true)
  );
}

/** JSON has no functions: a result's functions are left out, as JSON.stringify leaves out native ones. */
function withoutFunctions(_key: string, value: unknown): unknown {
  return isFunction(value) ? undefined : value;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error !== null && typeof error === 'object' && 'message' in error) return String(error.message);
  return String(error);
}

/**
 * Why each regex literal of an expression (`$match(x, /…/)`) cannot run in linear time (empty when
 * all can): a regex runs as one step no evaluation budget interrupts, so expressions from a request or
 * written by the model may carry only regexes V8's linear engine can finish (docs/security.md).
 * Throws ExpressionError COMPILE for a syntax error.
 */
export function slowRegexes(expression: string): string[] {
  const problems: string[] = [];
  const seen = new Set<object>();
  let tree: unknown;
  try {
    tree = jsonata(expression).ast(); // not cached: these are one-off texts (a request's, the model's)
  } catch (error) {
    throw new ExpressionError('COMPILE', expression, errorText(error), { cause: error });
  }
  const stack: unknown[] = [tree];
  // Not `node !== undefined` as the loop's test: a tree holds undefined fields (a call's `name`).
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (node instanceof RegExp) {
      const why = linearTimeProblem(node);
      if (why !== undefined) problems.push(why);
      continue;
    }
    for (const child of Object.values(node)) stack.push(child);
  }
  return problems;
}
