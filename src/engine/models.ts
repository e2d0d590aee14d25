import { maxFileBytes } from '../fs/input-file.js';
import type { Flow } from '../domain/flow.js';
import type { ModelClient } from '../model/model.js';
import { resolveModel, type ModelSpec } from '../model/resolve.js';
import { createProviderRegistry, type Env, type ProviderResolver } from '../model/providers.js';
import { realClock } from '../model/ai-sdk/retry.js';
import type { Clock } from './seams.js';
import type { RunRecord } from '../store/store.js';
import { RunError } from '../domain/run-error.js';

/** Resolves `<provider>:<model id>` strings other than `scripted:`. */
export type ProviderLookup = (provider: string, modelId: string) => ModelClient;

/**
 * The models of the runs this runtime works on: a model given by name is resolved again whenever a run
 * continues (in any process); a model object given to `start` is only known here, so it is kept per run.
 * A spec that cannot be resolved is bad input (RunError REQUEST_INVALID), found before anything changes.
 */
export class RunModels {
  private readonly objects = new Map<string, ModelClient>();

  private readonly providers: ProviderResolver;
  /** The size cap of scripted-model files (AGENT_RUNTIME_MAX_FILE_BYTES of the runtime's env). */
  private readonly fileBytes: number;

  /**
   * `providers` resolves provider names (default: the registry over `env`, whose models time
   * `retry-after` dates by `clock`): the runtime's env, never `process.env` behind its back.
   */
  constructor(providers: ProviderLookup | undefined, env: Env = process.env, clock?: Clock) {
    this.fileBytes = maxFileBytes(env);
    this.providers =
      providers ??
      createProviderRegistry({ env, ...(clock ? { model: { clock: { ...realClock, now: clock } } } : {}) });
  }

  /** The client of a model spec, with the flow's provider declarations. */
  resolve(spec: ModelSpec, flow: Flow): ModelClient {
    try {
      return resolveModel(spec, this.providers, flow.providers, this.fileBytes);
    } catch (error) {
      throw new RunError('REQUEST_INVALID', (error as Error).message, { cause: error });
    }
  }

  /** Keeps the model object a run was started with (it cannot be persisted). */
  remember(runId: string, model: ModelClient): void {
    this.objects.set(runId, model);
  }

  /** Drops the model object of a run that will not be continued. */
  forget(runId: string): void {
    this.objects.delete(runId);
  }

  /** How many model objects are kept (runs started with one that may still be continued here). */
  get kept(): number {
    return this.objects.size;
  }

  /**
   * The model a run continues with: `override`, else the object it started with here, else its
   * persisted name, else `inherited` (a child run started with its parent's model object, continued by
   * the parent's driver with the model the parent continues with).
   */
  forRun(record: RunRecord, override: ModelSpec | undefined, inherited?: ModelClient): ModelClient {
    const flow = record.flow;
    if (override !== undefined) return this.resolve(override, flow);
    const local = this.objects.get(record.runId);
    if (local) return local;
    if (record.model) return this.resolve(record.model, flow);
    if (inherited) return inherited;
    throw new RunError(
      'REQUEST_INVALID',
      `run ${record.runId} was started with a model object; pass the model to continue it`,
    );
  }
}
