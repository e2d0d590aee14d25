import { silentLogger, createStderrLogger, isLogLevel, type Logger, type LogLevel } from '../log/logger.js';
import type { ModelClient } from '../model/model.js';
import { openStore, type OpenStoreOptions } from '../store/open.js';
import type { Store } from '../store/store.js';
import type { LocalTool } from '../tools/tool.js';
import { guardCodesOf, type Guard } from '../tools/user-guards/define.js';
import { checkBuiltins, type UserBuiltin } from '../tools/builtin/user.js';
import { Runtime } from './runtime.js';
import type { EventSink } from '../engine/session.js';
import { DefaultToolbox } from '../engine/default-toolbox.js';
import { loadTelemetry, type TelemetryOptions } from '../telemetry/load.js';
import type { Clock, IdSource } from '../engine/seams.js';
import type { Env } from './config.js';
import type { Ablation } from '../engine/ablation.js';

export { Runtime } from './runtime.js';

/** Options of `createRuntime` (README.md; names are binding, options may grow). */
export interface CreateRuntimeOptions {
  /** `'memory'` (default), `'sqlite:path'`, `'postgres://…'` or a Store. */
  store?: string | Store;
  /** Options for opening the store (e.g. `durability: 'strict'`). */
  storeOptions?: OpenStoreOptions;
  /** Local tools, going through the same pipeline as MCP tools. */
  tools?: LocalTool[];
  /**
   * User guards (docs/interceptors.md): asked in this order about every call of a real tool, after its
   * argument and provenance checks and before the write gate (`before`), and about every successful
   * result after its response contract (`after`). Throws GuardDefinitionError for guards that clash.
   */
  guards?: readonly Guard[];
  /**
   * The application's own builtins (docs/builtins.md), made with `defineBuiltin`: tools the runtime answers
   * itself, offered in a node that lists them in `tools` (or where their `visible` says). Throws
   * BuiltinDefinitionError for two with one name, one named like a local tool, or a code used twice.
   */
  builtins?: readonly UserBuiltin[];
  /**
   * The human-readable log. By default the library logs nothing; give a Logger, or a `logLevel` (or set
   * env AGENT_RUNTIME_LOG_LEVEL) for one-line records on stderr. `false` is silent whatever the rest says.
   */
  logger?: Logger | false;
  /** With no `logger`: write records at or above this level to stderr (overrides env AGENT_RUNTIME_LOG_LEVEL). */
  logLevel?: LogLevel;
  /** Lease length in ms (default env AGENT_RUNTIME_LEASE_MS, else 15000). */
  leaseMs?: number;
  /** Receives every committed event of runs this runtime drives. */
  onEvent?: EventSink;
  /** Resolves provider model names other than `scripted:`. */
  providers?: (provider: string, modelId: string) => ModelClient;
  /** Queue mode (docs/scale-out.md): hand runnable runs to a queue (e.g. `RunQueue.enqueue` of `./postgres`) instead of driving them. */
  enqueue?: (runId: string) => Promise<void>;
  /**
   * OpenTelemetry: the application's tracer/meter providers; default: the standard OTEL_* variables
   * (nothing is exported, nor any OpenTelemetry module loaded, when none is set); `false`: off.
   */
  telemetry?: TelemetryOptions | false;
  /** Bound of `tool.invoked.result` in bytes of JSON (default env AGENT_RUNTIME_TRACE_RESULT_BYTES, else 16384; 0: no results). */
  traceResultBytes?: number;
  /**
   * The one clock of the runtime (default: `Date.now`): leases, event times, the store's record stamps
   * (`createdAt`, `updatedAt`, thread and approval times), takeover queries, MCP idle times and model
   * retry delays asked for as a date; for deterministic tests.
   */
  clock?: Clock;
  /** The source of run ids and of the runtime's lease owner id (default: random UUIDs). */
  ids?: IdSource;
  /**
   * Where settings not given as options are read from (default: `process.env`), once, here: the log
   * level, lease and trace bounds, telemetry, and the keys and settings of model providers.
   */
  env?: Env;
  /**
   * The working directory: relative `sqlite:` paths, and the folder of flows given as objects (their
   * `scripted:` models, MCP server commands, delegates), resolve against it (default: `process.cwd()`).
   */
  cwd?: string;
  /**
   * An MCP connection with no request in flight for this long is closed (a stdio server ends); the next
   * call connects again (default 300000 = 5 min; 0: never). `serve --mcp-idle-ms` (docs/mcp.md).
   */
  mcpIdleMs?: number;
  /**
   * MCP connections one tenant (no tenant counting as one) may hold open (default 32): one more closes
   * the tenant's least recently used idle one, or fails as TOOL_UNREACHABLE when all are busy.
   * `serve --max-mcp-connections` (docs/mcp.md).
   */
  maxMcpConnections?: number;
  /** Tool catalogs (per tenant, folder and flow content) kept in memory, least recently used dropped first (default 256). */
  maxToolCatalogs?: number;
  /**
   * Eval switches (docs/evals.md, "Ablation"): `observations: 'plain'` shows the model one generic
   * error text for every non-success observation; `guards: 'off'` skips provenance and fingerprint
   * checks (the write gate stays). Default: the full runtime.
   */
  ablation?: Ablation;
  /**
   * Flows written in code (objects, or what `loadFlow` returned) whose code nodes this runtime may
   * continue although it did not start their runs: after a restart, or in another process (docs/flows.md,
   * "Code nodes"). A stored run keeps its flow as data, without its functions.
   */
  flows?: readonly object[];
  /**
   * What a run does when an MCP server whose entry has `auth` with grant authorization_code refuses it
   * for want of a person's authorization (docs/mcp.md, "Connect"): `fail` (default) ends the node
   * TOOLS_UNAUTHORIZED (`agent-runtime mcp login`, then `retry`); `suspend` makes the run wait for the
   * authorization as a pending item (`serve` and workers, where the console's Connect answers it).
   */
  mcpAuthorization?: 'fail' | 'suspend';
}

/** Creates an embedded runtime. The store opens on first use; call `close()` when done. */
export function createRuntime(options: CreateRuntimeOptions = {}): Runtime {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const clock = options.clock;
  const logger = chooseLogger(options, env);
  const store = openStore(options.store ?? 'memory', {
    cwd,
    ...(clock ? { now: () => new Date(clock()) } : {}),
    ...options.storeOptions,
  });
  return new Runtime({
    store,
    toolbox: new DefaultToolbox({
      localTools: options.tools ?? [],
      guards: options.guards === undefined ? [] : options.guards,
      builtins: checkBuiltins(
        options.builtins ?? [],
        (options.tools ?? []).map((tool) => tool.descriptor.name),
        guardCodesOf(options.guards ?? []),
      ),
      logger,
      maxCatalogs: options.maxToolCatalogs,
      mcp: {
        idleMs: options.mcpIdleMs,
        maxConnectionsPerTenant: options.maxMcpConnections,
        ...(clock ? { now: clock } : {}),
        env,
      },
      cwd,
    }),
    logger,
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.providers ? { providers: options.providers } : {}),
    ...(options.enqueue ? { enqueue: options.enqueue } : {}),
    telemetry: () => loadTelemetry(options.telemetry, logger, env),
    ...(options.traceResultBytes !== undefined ? { traceResultBytes: options.traceResultBytes } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.ids ? { ids: options.ids } : {}),
    ...(options.ablation ? { ablation: options.ablation } : {}),
    ...(options.flows ? { flows: options.flows } : {}),
    ...(options.mcpAuthorization ? { mcpAuthorization: options.mcpAuthorization } : {}),
    env,
    cwd,
  });
}

/** The logger a runtime uses: the one given, else stderr at the level asked for, else none (a quiet library). */
function chooseLogger(options: CreateRuntimeOptions, env: Env): Logger {
  if (options.logger === false) return silentLogger;
  if (options.logger) return options.logger;
  const fromEnv = env.AGENT_RUNTIME_LOG_LEVEL?.trim().toLowerCase();
  const level = options.logLevel ?? (fromEnv !== undefined && isLogLevel(fromEnv) ? fromEnv : undefined);
  return level === undefined ? silentLogger : createStderrLogger({ level });
}
