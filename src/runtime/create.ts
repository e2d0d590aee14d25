import { silentLogger, createStderrLogger, type Logger } from '../log/logger.js';
import type { ModelClient } from '../model/model.js';
import { openStore, type OpenStoreOptions } from '../store/open.js';
import type { Store } from '../store/store.js';
import type { LocalTool } from '../tools/tool.js';
import { Runtime } from './runtime.js';
import type { EventSink } from './session.js';
import { DefaultToolbox } from './default-toolbox.js';

export { Runtime } from './runtime.js';

/** Options of `createRuntime` (SPEC §14; names are binding, options may grow). */
export interface CreateRuntimeOptions {
  /** `'memory'` (default), `'sqlite:path'`, `'postgres://…'` or a Store. */
  store?: string | Store;
  /** Options for opening the store (e.g. `durability: 'strict'`). */
  storeOptions?: OpenStoreOptions;
  /** Local tools, going through the same pipeline as MCP tools. */
  tools?: LocalTool[];
  /** The human-readable log (default: stderr at info; `false` for none). */
  logger?: Logger | false;
  /** Lease length in ms (default env AGENT_RUNTIME_LEASE_MS, else 15000). */
  leaseMs?: number;
  /** Receives every committed event of runs this runtime drives. */
  onEvent?: EventSink;
  /** Resolves provider model names other than `scripted:`. */
  providers?: (provider: string, modelId: string) => ModelClient;
  /** Queue mode (SPEC §13): hand runnable runs to a queue (e.g. `RunQueue.enqueue` of `./postgres`) instead of driving them. */
  enqueue?: (runId: string) => Promise<void>;
  /** Bound of `tool.invoked.result` in bytes of JSON (default env AGENT_RUNTIME_TRACE_RESULT_BYTES, else 16384; 0: no results). */
  traceResultBytes?: number;
}

/** Creates an embedded runtime. The store opens on first use; call `close()` when done. */
export function createRuntime(options: CreateRuntimeOptions = {}): Runtime {
  const logger = options.logger === false ? silentLogger : (options.logger ?? createStderrLogger());
  const store = openStore(options.store ?? 'memory', options.storeOptions ?? {});
  return new Runtime({
    store,
    toolbox: new DefaultToolbox({ localTools: options.tools ?? [], logger }),
    logger,
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.providers ? { providers: options.providers } : {}),
    ...(options.enqueue ? { enqueue: options.enqueue } : {}),
    ...(options.traceResultBytes !== undefined ? { traceResultBytes: options.traceResultBytes } : {}),
  });
}
