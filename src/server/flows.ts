import { resolve } from 'node:path';
import { loadFlow, loadFlowText, type LoadedFlow } from '../flow/load.js';
import { isFlowError } from '../flow/problems.js';
import type { Logger } from '../log/logger.js';
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
  /** The file it was loaded from (flows from `--flows DIR`). */
  path?: string;
  registeredAt: string;
}

/** Options of a FlowRegistry. */
export interface FlowRegistryOptions {
  /** The `--flows DIR`: flows there are registered by `loadDir`, and relative paths of uploaded flows resolve against it (else the current directory). */
  dir?: string | null;
  /** Names of local tools the host provides (flow policies may name them). */
  knownTools?: Iterable<string>;
  logger?: Logger;
}

/**
 * The flows a server can start by id, in memory, keyed by flow id. Registering a flow whose id is
 * already there replaces it (the latest registration wins, whatever its `version`); runs already
 * started keep the flow they started with, which is persisted with the run.
 */
export class FlowRegistry {
  private readonly flows = new Map<string, { loaded: LoadedFlow; info: FlowInfo }>();
  readonly baseDir: string;
  private readonly knownTools: string[];

  constructor(private readonly options: FlowRegistryOptions = {}) {
    this.baseDir = resolve(options.dir ?? process.cwd());
    this.knownTools = [...(options.knownTools ?? [])];
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

  /** Loads a flow file and registers it (replacing a flow with the same id); throws FlowError. */
  async registerFile(file: string): Promise<FlowInfo> {
    return this.add(await loadFlow(file, { knownTools: this.knownTools }), 'dir', file);
  }

  /** Validates and registers a flow given as YAML or JSON text (relative paths resolve against `dir`); throws FlowError. */
  async registerText(text: string, name = '<upload>'): Promise<FlowInfo> {
    return this.add(await this.loadText(text, name), 'upload', null);
  }

  /** Validates a flow given as text without registering it (e.g. an inline flow); throws FlowError. */
  loadText(text: string, name = '<inline>'): Promise<LoadedFlow> {
    return loadFlowText(text, { baseDir: this.baseDir, name, knownTools: this.knownTools });
  }

  /** Validates a flow given as an object without registering it; throws FlowError. */
  loadObject(flow: object, name = '<inline>'): Promise<LoadedFlow> {
    return loadFlow(flow, { baseDir: this.baseDir, name, knownTools: this.knownTools });
  }

  /** The registered flow with this id, or undefined. */
  get(flowId: string): LoadedFlow | undefined {
    return this.flows.get(flowId)?.loaded;
  }

  /** Every registered flow, by id. */
  list(): FlowInfo[] {
    return [...this.flows.values()].map((e) => e.info).sort((a, b) => a.flowId.localeCompare(b.flowId));
  }

  private add(loaded: LoadedFlow, origin: FlowOrigin, path: string | null): FlowInfo {
    const { flow } = loaded;
    const info: FlowInfo = {
      flowId: flow.id,
      version: flow.version,
      ...(flow.description ? { description: flow.description } : {}),
      origin,
      ...(path ? { path } : {}),
      registeredAt: new Date().toISOString(),
    };
    const before = this.flows.get(flow.id);
    if (before)
      this.options.logger?.info('FLOWS replaced', {
        flowId: flow.id,
        version: info.version,
        previous: before.info.version,
      });
    this.flows.set(flow.id, { loaded, info });
    return info;
  }
}

/** The skipped files for one log line: the first ten, then how many more. */
function skippedList(files: string[]): string {
  const shown = files.slice(0, 10).join(', ');
  return files.length > 10 ? `${shown} and ${files.length - 10} more` : shown;
}
