/**
 * A worker process for the local-tool variant of `npm run bench:scale`: `startWorker` with the
 * workload's tools as local tools, logging like `agent-runtime worker`, stopped by SIGTERM.
 *
 *   node dist/bench/scale-worker.js --db postgres://… --concurrency N --writes FILE
 *
 * Nothing here is shipped.
 */
import { parseArgs } from 'node:util';
import { createStderrLogger } from '../src/log/logger.js';
import { batchedStderrWriter } from '../src/worker/log-writer.js';
import { startWorker } from '../src/worker/start.js';
import { localSiteTools } from './scale-local.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    concurrency: { type: 'string', default: '4' },
    writes: { type: 'string' },
  },
});
if (!values.db || !values.writes) throw new Error('scale-worker: --db and --writes are required');
const logger = createStderrLogger({ level: 'info', write: batchedStderrWriter() });
const handle = await startWorker({
  db: values.db,
  concurrency: Number(values.concurrency),
  tools: localSiteTools(values.writes),
  logger,
});
logger.info('WORKER started', { pid: process.pid });
await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
await handle.stop(10_000);
process.exit(0);
