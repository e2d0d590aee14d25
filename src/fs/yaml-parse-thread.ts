/**
 * The worker thread of `parseOffThread` (yaml-worker.ts): parses one YAML/JSON text given as
 * `workerData` and posts back the data or the syntax problems. A file of its own, started by URL, so
 * it runs as compiled from `dist/` (and from `src/` under Node's type stripping in tests); it imports
 * nothing of the runtime, only `yaml`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { LineCounter, parseDocument } from 'yaml';

interface Job {
  text: string;
  limits: { maxAliasCount: number };
}

const { text, limits } = workerData as Job;
const lineCounter = new LineCounter();
const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true, logLevel: 'error' });
const syntax = [...doc.errors, ...doc.warnings].map((e) => {
  const at = e.linePos?.[0];
  const message = (e.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?\s*$/, '').trim();
  return at ? { message, position: { line: at.line, column: at.col } } : { message };
});
if (syntax.length > 0) parentPort?.postMessage({ syntax });
else {
  try {
    const data: unknown = doc.toJS({ maxAliasCount: limits.maxAliasCount });
    parentPort?.postMessage({ syntax, data });
  } catch {
    parentPort?.postMessage({
      syntax: [
        {
          message: `the document expands aliases beyond ${limits.maxAliasCount} nodes (or refers to a missing anchor)`,
        },
      ],
    });
  }
}
