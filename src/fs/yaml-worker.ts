import { AgentRuntimeError } from '../domain/agent-runtime-error.js';
import { Worker } from 'node:worker_threads';
import { YAML_LIMITS, type YamlLimits } from './yaml-limits.js';

/** What a parse off the main thread gives back: data, or syntax problems (with positions). */
export interface OffThreadParse {
  readonly data?: unknown;
  readonly syntax: readonly { message: string; position?: { line: number; column: number } }[];
}

/** How long a parse off the main thread may take before it is a problem (ms). */
const PARSE_TIMEOUT_MS = 10_000;

/**
 * The worker's file: compiled `.js` beside this module in `dist/`, the `.ts` source when this module
 * itself runs from `src/` (tests, under Node's type stripping).
 */
const THREAD = new URL(
  `./yaml-parse-thread.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`,
  import.meta.url,
);

/**
 * Thrown when parse workers are all busy and the queue is full: the caller should try again later
 * (the HTTP API answers 503 with Retry-After). Bounds the CPU and memory that parallel uploads of
 * large documents can take.
 */
export class ParseBusyError extends AgentRuntimeError {
  override readonly name = 'ParseBusyError';
  declare readonly code: 'PARSE_BUSY';
  constructor(readonly retryAfterSeconds: number) {
    super(
      'PARSE_BUSY',
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
  return new Promise((resolve) => {
    const worker = new Worker(THREAD, {
      // None of the flags the process was started with (loaders, `--input-type`…) apply to the thread.
      execArgv: [],
      workerData: { text, limits },
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
