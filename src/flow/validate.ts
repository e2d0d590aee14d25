import { existsSync } from 'node:fs';
import { byPosition, inspectFlow, placer, type LoadedFlow } from './load.js';
import { serverProblems, type ListServerTools, type RemoteTool } from './mcp-check.js';
import { untrustedWarnings } from './untrusted-warnings.js';
import { listToolsOverMcp } from './mcp-lister.js';
import { flowModel, SCRIPTED_PREFIX } from './paths.js';
import type { FlowProblem, RawProblem } from './problems.js';

/** Options of `validateFlow`. */
export interface ValidateFlowOptions {
  /**
   * The server check: `true` (default) connects to the flow's MCP servers; a function lists a server's
   * tools some other way (tests, a shared pool); `false` checks the file only.
   */
  readonly servers?: boolean | ListServerTools;
  /** Tools the host provides besides MCP servers (local tools, and the builtins below). */
  readonly knownTools?: Iterable<string>;
  /** Which of `knownTools` are the host's builtins: a server tool of one of these names is a problem. */
  readonly builtins?: Iterable<string>;
}

/** The outcome of `validateFlow`: every problem found, and the flow when it loaded. */
export interface FlowValidation {
  readonly problems: readonly FlowProblem[];
  /**
   * What makes the flow risky but not invalid (docs/flows.md, "Untrusted text"): a write tool sharing
   * a node with untrusted-text tools, without contracts on its recipient-like parameters.
   */
  readonly warnings: readonly FlowProblem[];
  /** Present when the file loaded (it may still have server problems). */
  readonly loaded?: LoadedFlow;
}

/**
 * Checks a flow file completely (docs/flows.md; docs/cli.md `validate`): everything `loadFlow` checks, that a
 * `scripted:` model file exists, and, with `servers`, that every tool the flow names exists on its
 * servers without ambiguity. Never throws for a bad flow; a valid flow has no problems.
 */
export async function validateFlow(path: string, options: ValidateFlowOptions = {}): Promise<FlowValidation> {
  const knownTools = new Set(options.knownTools ?? []);
  const inspection = await inspectFlow(path, { knownTools });
  const loaded = inspection.loaded;
  if (!loaded) return { problems: inspection.problems, warnings: [] };
  const place = placer(inspection.file, inspection.locate);
  const raw: RawProblem[] = [];
  const model = flowModel(loaded);
  if (model?.startsWith(SCRIPTED_PREFIX) && !existsSync(model.slice(SCRIPTED_PREFIX.length))) {
    raw.push({
      path: ['model'],
      message: `file not found: ${model.slice(SCRIPTED_PREFIX.length)}; expected a scripted model file relative to the flow's folder`,
    });
  }
  const list =
    options.servers === false
      ? undefined
      : typeof options.servers === 'function'
        ? options.servers
        : listToolsOverMcp;
  const listed = new Map<string, RemoteTool>();
  if (list) {
    const inner = list;
    const capture: ListServerTools = async (serverId, config, baseDir) => {
      const tools = await inner(serverId, config, baseDir);
      for (const tool of tools)
        listed.set(loaded.flow.aliases[`${serverId}.${tool.name}`] ?? tool.name, tool);
      return tools;
    };
    const already = new Set(inspection.problems.filter((p) => p.file === inspection.file).map((p) => p.path));
    const found = await serverProblems(
      loaded.flow,
      loaded.dir ?? process.cwd(),
      capture,
      knownTools,
      new Set(options.builtins ?? []),
    );
    raw.push(...found.filter((p) => !already.has(place(p).path)));
  }
  const own = [...inspection.problems.filter((p) => p.file === inspection.file), ...raw.map(place)].sort(
    byPosition,
  );
  const warnings = untrustedWarnings(loaded.flow, listed).map(place).sort(byPosition);
  return {
    problems: [...own, ...inspection.problems.filter((p) => p.file !== inspection.file)],
    warnings,
    loaded,
  };
}
