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
 * Parses a large YAML/JSON text in a worker thread, so the event loop keeps answering (a megabyte
 * of YAML takes about a second to parse). Syntax problems and broken limits come back as problems;
 * a parse that outlasts 10 s is stopped and reported as one. At most two run at once; others wait.
 */
export async function parseOffThread(
  text: string,
  limits: YamlLimits = YAML_LIMITS,
): Promise<OffThreadParse> {
  // At most MAX_WORKERS parses at once: each holds a parsed document of its text in memory.
  while (running >= MAX_WORKERS) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await parseInWorker(text, limits);
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

/** Parses allowed at once, and the callers waiting for a turn. */
const MAX_WORKERS = 2;
let running = 0;
const waiting: (() => void)[] = [];

function parseInWorker(text: string, limits: YamlLimits): Promise<OffThreadParse> {
  const yaml = createRequire(import.meta.url).resolve('yaml');
  return new Promise((resolve) => {
    const worker = new Worker(SOURCE, { eval: true, workerData: { text, limits, yaml } });
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
      resolve({ syntax: [{ message: `the document could not be parsed: ${firstLine(error.message)}` }] });
    });
  });
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).trim();
}
