import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { YAML_LIMITS, type YamlLimits } from './yaml-limits.js';

/** What a parse off the main thread gives back: data, or syntax problems (with positions). */
export interface OffThreadParse {
  readonly data?: unknown;
  readonly syntax: readonly { message: string; position?: { line: number; column: number } }[];
}

/** How long a parse off the main thread may take before it is a problem (ms). */
const PARSE_TIMEOUT_MS = 10_000;

// The worker is an eval'd CommonJS script so that it runs the same from src/ (tests) and dist/.
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { parseDocument, LineCounter } = require(workerData.yaml);
const { text, limits } = workerData;
const lineCounter = new LineCounter();
const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true, logLevel: 'error' });
const syntax = [...doc.errors, ...doc.warnings].map((e) => {
  const at = e.linePos && e.linePos[0];
  const message = (e.message.split('\\n')[0] || '').replace(/ at line \\d+, column \\d+:?\\s*$/, '').trim();
  return at ? { message, position: { line: at.line, column: at.col } } : { message };
});
if (syntax.length > 0) { parentPort.postMessage({ syntax }); }
else {
  try { parentPort.postMessage({ syntax, data: doc.toJS({ maxAliasCount: limits.maxAliasCount }) }); }
  catch (e) {
    parentPort.postMessage({ syntax: [{ message: 'the document expands aliases beyond ' + limits.maxAliasCount + ' nodes (or refers to a missing anchor)' }] });
  }
}
`;

/**
 * Thrown when parse workers are all busy and the queue is full: the caller should try again later
 * (the HTTP API answers 503 with Retry-After). Bounds the CPU and memory that parallel uploads of
 * large documents can take.
 */
export class ParseBusyError extends Error {
  override readonly name = 'ParseBusyError';
  constructor(readonly retryAfterSeconds: number) {
    super(
      `too many large documents are being parsed (${MAX_WORKERS} at once, ${MAX_WAITING} waiting); retry in ${retryAfterSeconds} s`,
    );
  }
}

/**
 * Parses a large YAML/JSON text in a worker thread, so the event loop keeps answering (a megabyte
 * of YAML takes about a second to parse). Syntax problems and broken limits come back as problems;
 * a parse that outlasts 10 s, or needs more memory than its worker may have, is stopped and reported
 * as one. At most two run at once and four wait; beyond that it throws ParseBusyError.
 */
export async function parseOffThread(
  text: string,
  limits: YamlLimits = YAML_LIMITS,
): Promise<OffThreadParse> {
  if (running < MAX_WORKERS) running += 1;
  else if (waiting.length >= MAX_WAITING) throw new ParseBusyError(RETRY_AFTER_SECONDS);
  // A finishing parse hands its slot to the first waiting one (`running` stays counted), so a
  // newcomer never slips past the queue.
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await parseInWorker(text, limits);
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

/** Parses allowed at once (each holds a parsed document of its text in memory), and how many may wait. */
const MAX_WORKERS = 2;
const MAX_WAITING = 4;
const RETRY_AFTER_SECONDS = 2;
let running = 0;
const waiting: (() => void)[] = [];

/**
 * Heap limits of a parse worker. The values cap (checked before parsing) keeps a sane document far
 * below them; a document that still needs more is a problem, not a server out of memory.
 */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 };

function parseInWorker(text: string, limits: YamlLimits): Promise<OffThreadParse> {
  const yaml = createRequire(import.meta.url).resolve('yaml');
  return new Promise((resolve) => {
    const worker = new Worker(SOURCE, {
      eval: true,
      // The script is CommonJS whatever flags the process was started with (`--input-type=module`…).
      execArgv: [],
      workerData: { text, limits, yaml },
      resourceLimits: RESOURCE_LIMITS,
    });
    const timer = setTimeout(() => {
      void worker.terminate();
      resolve({ syntax: [{ message: `parsing took longer than ${PARSE_TIMEOUT_MS / 1000} s` }] });
    }, PARSE_TIMEOUT_MS);
    worker.once('message', (result: OffThreadParse) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(result);
    });
    worker.once('error', (error: Error) => {
      clearTimeout(timer);
      const message =
        (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `parsing needed more than ${RESOURCE_LIMITS.maxOldGenerationSizeMb} MB of memory`
          : `the document could not be parsed: ${firstLine(error.message)}`;
      resolve({ syntax: [{ message }] });
    });
  });
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).trim();
}
