import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadFlow, loadFlowText, type LoadedFlow, type LoadFlowOptions } from '../flow/load.js';
import { isFlowError } from '../flow/problems.js';
import type { Logger } from '../log/logger.js';

/** How a registered flow got here. */
export type FlowOrigin = 'dir' | 'upload';

/** One entry of the registry as listed by `GET /v1/flows`. */
export interface FlowInfo {
  flowId: string;
  version: string;
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
}

/** Options of a FlowRegistry. */
export interface FlowRegistryOptions {
  /** The `--flows DIR`: flows there are registered by `loadDir`, and relative paths of uploaded flows resolve against it (else the current directory). */
  dir?: string | null;
  /** Names of local tools the host provides (flow policies may name them). */
  knownTools?: Iterable<string>;
  logger?: Logger;
}

const FLOW_FILE = /\.(ya?ml|json)$/i;
const NESTED = ['flow.yaml', 'flow.yml', 'flow.json'];

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
  private readonly knownTools: string[];

  constructor(private readonly options: FlowRegistryOptions = {}) {
    this.baseDir = resolve(options.dir ?? process.cwd());
    this.knownTools = [...(options.knownTools ?? [])];
  }

  /**
   * Registers every flow file of the `dir` folder: `*.yaml`, `*.yml`, `*.json` directly in it and
   * `<sub>/flow.yaml|yml|json` one level down. A file that is not a valid flow is skipped with a
   * warning naming its problems. Returns what was registered.
   */
  async loadDir(): Promise<FlowInfo[]> {
    if (!this.options.dir) return [];
    const registered: FlowInfo[] = [];
    for (const file of await flowFiles(this.baseDir)) {
      try {
        registered.push(this.add(await loadFlow(file, { knownTools: this.knownTools }), 'dir', file, null));
      } catch (error) {
        if (!isFlowError(error)) throw error;
        this.options.logger?.warn('FLOWS skipped a file that is not a valid flow', {
          file,
          problems: error.message,
        });
      }
    }
    return registered;
  }

  /**
   * Validates and registers a flow given as YAML or JSON text for `tenant` (null: shared). Relative
   * paths resolve against `dir` and delegate files must lie inside it. `vet` may refuse the flow
   * (by throwing) before it is registered. Throws FlowError for an invalid flow.
   */
  async registerText(
    text: string,
    name = '<upload>',
    tenant: string | null = null,
    vet?: (loaded: LoadedFlow) => void,
  ): Promise<FlowInfo> {
    const loaded = await this.loadText(text, name);
    vet?.(loaded);
    return this.add(loaded, 'upload', null, tenant);
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
    return { baseDir: this.baseDir, name, knownTools: this.knownTools, confineTo: this.baseDir };
  }

  private add(loaded: LoadedFlow, origin: FlowOrigin, path: string | null, tenant: string | null): FlowInfo {
    const { flow } = loaded;
    const info: FlowInfo = {
      flowId: flow.id,
      version: String(flow.version),
      ...(flow.description ? { description: flow.description } : {}),
      origin,
      ...(path ? { path } : {}),
      ...(tenant !== null ? { tenant } : {}),
      registeredAt: new Date().toISOString(),
    };
    const before = this.flows.get(key(tenant, flow.id));
    if (before)
      this.options.logger?.info('FLOWS replaced', {
        flowId: flow.id,
        ...(tenant !== null ? { tenant } : {}),
        version: info.version,
        previous: before.info.version,
      });
    this.flows.set(key(tenant, flow.id), { loaded, info });
    return info;
  }
}

function key(tenant: string | null, flowId: string): string {
  return `${tenant ?? ''}\u0000${flowId}`;
}

async function flowFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const path = join(dir, entry.name);
    if (entry.isFile() && FLOW_FILE.test(entry.name)) files.push(path);
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    for (const name of NESTED) {
      const nested = join(path, name);
      if (await isFile(nested)) files.push(nested);
    }
  }
  return files;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
