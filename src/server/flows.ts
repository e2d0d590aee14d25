import { resolve } from 'node:path';
import { releaseSchemas } from '../domain/schema-engine.js';
import { loadFlow, loadFlowText, type LoadedFlow, type LoadFlowOptions } from '../flow/load.js';
import { isFlowError } from '../flow/problems.js';
import type { Logger } from '../log/logger.js';
import { ApiError } from './errors.js';
import { scanFlowFiles } from './flow-files.js';

/** How a registered flow got here. */
export type FlowOrigin = 'dir' | 'upload';

/** One entry of the registry as listed by `GET /v1/flows`. */
export interface FlowInfo {
  flowId: string;
  /** As the flow writes it: `version: 1` stays the number 1, `version: '2024-05'` a string. */
  version: string | number;
  description?: string;
  origin: FlowOrigin;
  /** The file it was loaded from (flows from `--flows DIR`; shown to instance admins only). */
  path?: string;
  /** The tenant owning the flow; absent for a shared flow (every tenant sees it). */
  tenant?: string;
  registeredAt: string;
}

/** A registered flow and how it got here (flows that came over HTTP are held to the request policy). */
export interface FlowEntry {
  readonly loaded: LoadedFlow;
  readonly info: FlowInfo;
  /** Bytes of the uploaded text (uploads only; counted against `FlowLimits.maxBytes`). */
  readonly bytes?: number;
}

/**
 * What uploaded flows one tenant (or the shared flows, for admins without tenant) may hold in memory:
 * a parsed flow costs about three times its text. Flows of `--flows DIR` are not counted.
 */
export interface FlowLimits {
  /** Uploaded flows of distinct ids (`serve --max-flows`, default 1000); registering an id held already replaces it. */
  readonly maxFlows: number;
  /** Total bytes of their uploaded text (`serve --max-flow-bytes`, default 16 MiB). */
  readonly maxBytes: number;
}

/** The limits of a registry that is given none. */
export const DEFAULT_FLOW_LIMITS: FlowLimits = { maxFlows: 1000, maxBytes: 16 * 1024 * 1024 };

/** Options of a FlowRegistry. */
export interface FlowRegistryOptions {
  /** The `--flows DIR`: flows there are registered by `loadDir`, and relative paths of uploaded flows resolve against it (else the current directory). */
  dir?: string | null;
  /** Names of local tools the host provides (flow policies may name them). */
  knownTools?: Iterable<string>;
  logger?: Logger;
  /** Limits of uploaded flows per tenant (default DEFAULT_FLOW_LIMITS). */
  limits?: Partial<FlowLimits>;
  /** Milliseconds since the epoch, for `registeredAt` (the runtime's clock; default `Date.now`). */
  clock?: () => number;
  /** The folder relative paths resolve against without `dir` (the runtime's cwd; default the process's). */
  cwd?: string;
}

/**
 * The flows a server can start by id, in memory, per tenant: shared flows (tenant null: `--flows DIR`
 * and uploads by an admin without tenant) are seen by every tenant; a tenant's own flow shadows a
 * shared flow of the same id for that tenant only. Registering a flow whose id the same tenant
 * already has replaces it (the latest registration wins, whatever its `version`); runs already
 * started keep the flow they started with, which is persisted with the run.
 */
export class FlowRegistry {
  private readonly flows = new Map<string, FlowEntry>();
  readonly baseDir: string;
  readonly limits: FlowLimits;
  private readonly knownTools: string[];

  constructor(private readonly options: FlowRegistryOptions = {}) {
    this.baseDir = resolve(options.dir ?? options.cwd ?? process.cwd());
    this.knownTools = [...(options.knownTools ?? [])];
    this.limits = { ...DEFAULT_FLOW_LIMITS, ...options.limits };
  }

  /**
   * Registers every flow file under the `dir` folder, found recursively and recognised by content
   * (flow-files.ts); other YAML/JSON files (package.json, scripted turns…) are named in one log line.
   * A flow file with problems is skipped with a warning naming them. Returns what was registered.
   */
  async loadDir(): Promise<FlowInfo[]> {
    if (!this.options.dir) return [];
    const registered: FlowInfo[] = [];
    const scan = await scanFlowFiles(this.baseDir);
    for (const file of scan.flows) {
      try {
        registered.push(await this.registerFile(file));
      } catch (error) {
        if (!isFlowError(error)) throw error;
        this.options.logger?.warn('FLOWS skipped a flow file with problems', {
          file,
          problems: error.message,
        });
      }
    }
    if (scan.skipped.length > 0)
      this.options.logger?.info('FLOWS skipped files that are not flows', {
        count: scan.skipped.length,
        files: skippedList(scan.skipped),
      });
    return registered;
  }

  /** Whether the registry has a `--flows DIR` (flows sent over HTTP may delegate only to its flow files). */
  get hasDir(): boolean {
    return Boolean(this.options.dir);
  }

  /** Loads a flow file and registers it as a shared flow (replacing one with the same id); throws FlowError. */
  async registerFile(file: string): Promise<FlowInfo> {
    return this.add(await loadFlow(file, { knownTools: this.knownTools }), 'dir', file, null);
  }

  /**
   * Validates and registers a flow given as YAML or JSON text for `tenant` (null: shared). Relative
   * paths resolve against `dir` and delegate files must lie inside it. `vet` may refuse the flow
   * (by throwing) before it is registered. Throws FlowError for an invalid flow, and ApiError 409
   * FLOW_LIMIT when the tenant would hold more uploaded flows or bytes than `limits` allow.
   */
  async registerText(
    text: string,
    name = '<upload>',
    tenant: string | null = null,
    vet?: (loaded: LoadedFlow) => void,
  ): Promise<FlowInfo> {
    const bytes = Buffer.byteLength(text);
    // A document larger than the whole allowance is refused before it costs a parse.
    if (bytes > this.limits.maxBytes) throw this.overLimit(tenant, 'bytes');
    const loaded = await this.loadText(text, name);
    vet?.(loaded);
    this.checkLimits(tenant, loaded.flow.id, bytes);
    return this.add(loaded, 'upload', null, tenant, bytes);
  }

  /** Validates a flow given as text without registering it (e.g. an inline flow); throws FlowError. */
  loadText(text: string, name = '<inline>'): Promise<LoadedFlow> {
    return loadFlowText(text, this.requestOptions(name));
  }

  /** Validates a flow given as an object without registering it; throws FlowError. */
  loadObject(flow: object, name = '<inline>'): Promise<LoadedFlow> {
    return loadFlow(flow, this.requestOptions(name));
  }

  /** The flow `tenant` starts by this id (its own, else the shared one), or undefined. */
  get(flowId: string, tenant: string | null = null): LoadedFlow | undefined {
    return this.entry(flowId, tenant)?.loaded;
  }

  /** Like `get`, with how the flow was registered. */
  entry(flowId: string, tenant: string | null = null): FlowEntry | undefined {
    return (
      (tenant !== null ? this.flows.get(key(tenant, flowId)) : undefined) ?? this.flows.get(key(null, flowId))
    );
  }

  /** The flows `tenant` sees (null: the shared ones), by id; a tenant's own flow hides a shared one of its id. */
  list(tenant: string | null = null): FlowInfo[] {
    const seen = new Map<string, FlowInfo>();
    for (const { info } of this.flows.values()) {
      const owner = info.tenant ?? null;
      if (owner !== null && owner !== tenant) continue;
      if (owner === null && seen.has(info.flowId)) continue;
      seen.set(info.flowId, info);
    }
    return [...seen.values()].sort((a, b) => a.flowId.localeCompare(b.flowId));
  }

  private requestOptions(name: string): LoadFlowOptions {
    // Without --flows DIR there is no folder of flows the operator chose: a request's flow may not delegate.
    const confineTo = this.hasDir ? this.baseDir : null;
    return { baseDir: this.baseDir, name, knownTools: this.knownTools, confineTo };
  }

  /** Throws FLOW_LIMIT when registering `bytes` of text as `flowId` would take `tenant` over a limit. */
  private checkLimits(tenant: string | null, flowId: string, bytes: number): void {
    const replaced = this.flows.get(key(tenant, flowId));
    let count = 0;
    let total = bytes - (replaced?.bytes ?? 0);
    for (const entry of this.flows.values()) {
      if (entry.bytes === undefined || (entry.info.tenant ?? null) !== tenant) continue;
      count += 1;
      total += entry.bytes;
    }
    if (replaced?.bytes === undefined && count >= this.limits.maxFlows) throw this.overLimit(tenant, 'flows');
    if (total > this.limits.maxBytes) throw this.overLimit(tenant, 'bytes');
  }

  private overLimit(tenant: string | null, what: 'flows' | 'bytes'): ApiError {
    const who = tenant === null ? 'the shared flows' : `tenant ${tenant}`;
    const limit =
      what === 'flows'
        ? `${who} already holds ${this.limits.maxFlows} uploaded flows (serve --max-flows)`
        : `${who} would hold more than ${this.limits.maxBytes} bytes of uploaded flows (serve --max-flow-bytes)`;
    return new ApiError(
      409,
      'FLOW_LIMIT',
      `${limit}; replace a flow of the same id, or ask the server's operator for a higher limit`,
    );
  }

  private add(
    loaded: LoadedFlow,
    origin: FlowOrigin,
    path: string | null,
    tenant: string | null,
    bytes?: number,
  ): FlowInfo {
    const { flow } = loaded;
    const info: FlowInfo = {
      flowId: flow.id,
      version: flow.version,
      ...(flow.description ? { description: flow.description } : {}),
      origin,
      ...(path ? { path } : {}),
      ...(tenant !== null ? { tenant } : {}),
      registeredAt: new Date((this.options.clock ?? Date.now)()).toISOString(),
    };
    const before = this.flows.get(key(tenant, flow.id));
    if (before)
      this.options.logger?.info('FLOWS replaced', {
        flowId: flow.id,
        ...(tenant !== null ? { tenant } : {}),
        version: info.version,
        previous: before.info.version,
      });
    this.flows.set(key(tenant, flow.id), { loaded, info, ...(bytes !== undefined ? { bytes } : {}) });
    // The replaced version's compiled validators go with it (runs of it compile them again if needed).
    if (before && before.loaded.flow !== flow) releaseSchemas(before.loaded.flow);
    return info;
  }
}

/** The skipped files for one log line: the first ten, then how many more. */
function skippedList(files: string[]): string {
  const shown = files.slice(0, 10).join(', ');
  return files.length > 10 ? `${shown} and ${files.length - 10} more` : shown;
}

function key(tenant: string | null, flowId: string): string {
  return `${tenant ?? ''}\u0000${flowId}`;
}
