/**
 * The worker thread of `ExpressionSandbox` (expression-sandbox.ts): evaluates one JSONata expression per
 * message and posts back its value as JSON text, or the error's message. A file of its own, started by
 * URL, so it runs as compiled from `dist/` (and from `src/` under Node's type stripping in tests); it
 * imports nothing of the runtime, only `jsonata`. `$eval` is replaced by a function that fails, so an
 * expression cannot build and run another one.
 */
import { setFlagsFromString } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import jsonata from 'jsonata';

/** What the sandbox gives the thread when it starts it. */
interface Setup {
  readonly limits: Readonly<Record<string, number>>;
  readonly maxResult: number;
  readonly maxCachedText: number;
}

/** One evaluation asked of the thread. */
interface Ask {
  readonly id: number;
  readonly expression: string;
  readonly input: unknown;
}

// A regex that backtracks too much switches to V8's linear-time engine (docs/security.md).
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

const setup = workerData as Setup;
const cache = new Map<string, jsonata.Expression>();
let cached = 0;

const noEval = (): never => {
  throw new Error('$eval is not available in this expression');
};

function compiled(expression: string): jsonata.Expression {
  const known = cache.get(expression);
  if (known) return known;
  const fresh = jsonata(expression, setup.limits);
  if (cached + expression.length > setup.maxCachedText) {
    cache.clear();
    cached = 0;
  }
  cache.set(expression, fresh);
  cached += expression.length;
  return fresh;
}

async function evaluate({ id, expression, input }: Ask): Promise<void> {
  try {
    const result: unknown = await compiled(expression).evaluate(input, { eval: noEval });
    const text =
      result === undefined || isFunction(result) ? undefined : JSON.stringify(result, withoutFunctions);
    if (text !== undefined && text.length > setup.maxResult)
      throw new Error(`its value is larger than ${setup.maxResult} characters of JSON`);
    parentPort?.postMessage({ id, ok: true, text });
  } catch (error) {
    const message =
      error !== null &&
      typeof error === 'object' &&
      typeof (error as { message?: unknown }).message === 'string'
        ? (error as { message: string }).message
        : String(error);
    parentPort?.postMessage({ id, ok: false, message });
  }
}

/**
 * A JSONata function (an object that refers to its scope) or a native one: no JSON value. The same
 * check as `toPlain` in expressions.ts, kept here because this file imports nothing of the runtime.
 */
function isFunction(value: unknown): boolean {
  return (
    typeof value === 'function' ||
    (typeof value === 'object' &&
      value !== null &&
      (value as { _jsonata_lambda?: unknown })._jsonata_lambda === true)
  );
}

function withoutFunctions(_key: string, value: unknown): unknown {
  return isFunction(value) ? undefined : value;
}

parentPort?.on('message', (ask: Ask) => void evaluate(ask));
parentPort?.postMessage({ ready: true });
