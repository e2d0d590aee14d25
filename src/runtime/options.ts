import type { Logger } from '../log/logger.js';
import type { ModelClient } from '../model/model.js';
import type { ModelSpec } from '../model/resolve.js';
import type { Store } from '../store/store.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { Clock, IdSource } from '../engine/seams.js';
import type { Env } from './config.js';
import type { EventSink } from '../engine/session.js';
import type { RunSummary } from '../records/summary.js';
import type { FlowRef, Toolbox } from '../engine/toolbox.js';
import type { FlowInput } from '../domain/flow.js';
import type { Ablation } from '../engine/ablation.js';

/** Options of `createRuntime` (README.md). */
export interface RuntimeOptions {
  /** The store, or a promise of it (opened lazily by `createRuntime`). */
  store: Store | Promise<Store>;
  toolbox: Toolbox;
  logger?: Logger;
  /** Lease length in ms (default env AGENT_RUNTIME_LEASE_MS, else 15000). */
  leaseMs?: number;
  /** Receives every committed event of runs this runtime drives (e.g. `--trace FILE`). */
  onEvent?: EventSink;
  /** Resolves `<provider>:<model id>` strings other than `scripted:`. */
  providers?: (provider: string, modelId: string) => ModelClient;
  /**
   * Queue mode (docs/scale-out.md): `start` and approve/reject/answer of a top-level run persist it with its
   * lease released and hand its id here instead of driving it; a worker then drives it with `drive`.
   * Child runs are always driven by their parent's driver.
   */
  enqueue?: (runId: string) => Promise<void>;
  /** OpenTelemetry traces and metrics (default: none, docs/observability.md); a function is called on first use. */
  telemetry?: Telemetry | (() => Promise<Telemetry>);
  /** Bound of `tool.invoked.result` in bytes of JSON (default env AGENT_RUNTIME_TRACE_RESULT_BYTES, else 16384; 0: none). */
  traceResultBytes?: number;
  /** The clock of leases, event times and waits (default: `Date.now`). */
  clock?: Clock;
  /** The source of run ids and of this runtime's lease owner id (default: random UUIDs). */
  ids?: IdSource;
  /** Where unset options and model provider settings are read from (default: `process.env`). */
  env?: Env;
  /** The folder flows without one of their own resolve against (default: `process.cwd()`). */
  cwd?: string;
  /** Eval switches (docs/evals.md): `observations: 'plain'`, `guards: 'off'`; default: the full runtime. */
  ablation?: Ablation;
  /**
   * Flows written in code (objects, or what `loadFlow` returned) whose code nodes this runtime may
   * continue although it did not start their runs — after a restart, or in another process
   * (docs/flows.md, "Code nodes"). A run stores its flow as data, without its functions.
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

/** Options of `start`. */
export interface StartOptions {
  input?: unknown;
  model?: ModelSpec;
  tenant?: string | null;
  parentRunId?: string;
  /** For a child run: the parent's delegate call (so a repeated call after a crash finds it). */
  parentCallId?: string;
  /** Called once the new run is persisted, before driving starts (lets a server answer at once). */
  onAccepted?: (summary: RunSummary) => void;
  /**
   * The thread (docs/threads.md) the message belongs to: the run starts with the thread's earlier
   * turns; when the thread's last run asks a follow-up question the input's text answers it instead
   * (that run's summary is returned); RunError THREAD_BUSY while it runs or waits for an approval.
   */
  thread?: string;
  /**
   * Who sent the message: recorded as the run's starter (who cannot count as one of several approvers,
   * docs/approvals.md) and when it answers a follow-up question of the thread.
   */
  who?: string | null;
}

/** A decision or answer from a person, with who gave it. */
export interface RespondOptions {
  comment?: string | null;
  who?: string | null;
  /**
   * The token role of the person (the server sets it): checked against the approval policy's
   * `approvers.roles` (docs/approvals.md). Absent: roles are not checked (a local store).
   */
  role?: string | null;
  /**
   * `approve` with edited arguments (docs/approvals.md): they go through the whole guard chain again
   * (the person's changes count as the user's words) and the approval binds to them; RunError
   * ARGS_REFUSED, nothing changed, when a check refuses them.
   */
  args?: Record<string, unknown>;
  model?: ModelSpec;
  /**
   * The id of the pending item this response is for (the summary's `suspension.pending.id`): the
   * response is refused (RunError RUN_CONFLICT, nothing changed) when the run waits for another item.
   */
  expect?: string;
  /**
   * `answer` to an MCP server's question (docs/mcp.md, "Elicitation"): accept (default; the text is the
   * form's JSON object), decline or cancel (the text is then ignored).
   */
  action?: 'accept' | 'decline' | 'cancel';
  /** Called once the response is persisted, before driving continues (lets a server answer at once). */
  onAccepted?: (summary: RunSummary) => void;
}

/** Options of `fork` (docs/evals.md, "Fork"). */
export interface ForkOptions {
  /** The event of the run to continue after (its `seq`). */
  at: number;
  /** The model to continue with (default: the run's). */
  model?: ModelSpec;
  /** The flow to continue with: another version of the run's flow (default: the run's own). */
  flow?: FlowRef | FlowInput;
  /** Called once the new run is persisted, before driving starts (lets a server answer at once). */
  onAccepted?: (summary: RunSummary) => void;
}
