import { createStderrLogger, isLogLevel, type Logger } from '../log/logger.js';
import { parseStoreUrl, resolveDbUrl } from '../store/open.js';
import { batchedStderrWriter } from '../worker/log-writer.js';
import { startWorker } from '../worker/start.js';
import { COMMON, EXTENSIONS, UsageError, parse, str } from './args.js';
import { loadExtensions, runtimeExtensions } from './extensions.js';
import type { Command } from './commands.js';

/** How `runWorkerCommand` talks to the world (injected by tests). */
export interface WorkerIo {
  /** Resolves when the worker should stop (default: the first SIGINT or SIGTERM). */
  stopped: (logger: Logger) => Promise<void>;
  logger?: Logger;
}

/** The `worker` command of the CLI. */
export const worker: Command = (argv) => runWorkerCommand(argv, { stopped: shutdownSignal });

/**
 * `worker --db postgres://… [--concurrency N] [--shutdown-timeout S] [--guards MODULE] [--tools MODULE]` (docs/cli.md; docs/scale-out.md): takes runnable
 * runs of the shared PostgreSQL store from its queue and drives them, until SIGINT/SIGTERM; then stops
 * taking runs and gives the runs it drives up to S seconds (default 10) to reach a suspension or an
 * end — runs still going are taken over by other workers once their lease expires. Lease length: env
 * AGENT_RUNTIME_LEASE_MS (default 15000); log level: env AGENT_RUNTIME_LOG_LEVEL (default info).
 * Exits 0 after stopping, 2 for bad flags or a store that is not PostgreSQL.
 */
export async function runWorkerCommand(argv: string[], io: WorkerIo): Promise<number> {
  const parsed = parse(
    'worker',
    argv,
    { ...COMMON, ...EXTENSIONS, concurrency: { type: 'string' }, 'shutdown-timeout': { type: 'string' } },
    { min: 0, max: 0, names: '' },
  );
  const db = resolveDbUrl({ db: str(parsed, 'db') });
  if (parseStoreUrl(db).kind !== 'postgres') {
    throw new UsageError('worker: needs a PostgreSQL store: --db postgres://… (or env AGENT_RUNTIME_DB)');
  }
  const concurrency = positive('concurrency', str(parsed, 'concurrency'), 4);
  const extensions = await loadExtensions(parsed);
  const graceMs = positive('shutdown-timeout', str(parsed, 'shutdown-timeout'), 10) * 1000;
  const level = process.env.AGENT_RUNTIME_LOG_LEVEL ?? 'info';
  const logger =
    io.logger ??
    createStderrLogger({ level: isLogLevel(level) ? level : 'info', write: batchedStderrWriter() });
  const handle = await startWorker({
    db,
    concurrency,
    logger,
    env: process.env,
    cwd: process.cwd(),
    ...runtimeExtensions(extensions),
  });
  logger.info('WORKER started', { pid: process.pid, concurrency, schema: handle.store.schema });
  await io.stopped(logger);
  const left = await handle.stop(graceMs);
  logger.info('WORKER stopped', { runsLeftRunning: left.length });
  return 0;
}

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1)
    throw new UsageError(
      `worker: --${name} must be a whole number of at least 1, not ${JSON.stringify(raw)}`,
    );
  return value;
}

/** Resolves on the first SIGINT or SIGTERM; a second one exits at once. */
function shutdownSignal(logger: Logger): Promise<void> {
  return new Promise<void>((resolve) => {
    const first = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', first);
      process.off('SIGTERM', first);
      logger.info('WORKER shutting down: no new runs; waiting for runs being driven to suspend or end', {
        signal,
      });
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      resolve();
    };
    process.once('SIGINT', first);
    process.once('SIGTERM', first);
  });
}
