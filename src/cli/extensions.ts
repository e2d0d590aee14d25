import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkBuiltins, isUserBuiltin, type UserBuiltin } from '../tools/builtin/user.js';
import type { LocalTool } from '../tools/tool.js';
import { checkGuards, guardCodesOf, isGuard, type Guard } from '../tools/user-guards/define.js';
import { UsageError, type Parsed } from './args.js';

/** What `--guards` and `--tools` brought: empty lists without them. */
export interface Extensions {
  readonly guards: readonly Guard[];
  readonly tools: readonly LocalTool[];
  /** The application's own builtins (`defineBuiltin`), given with `--tools` beside the local tools. */
  readonly builtins: readonly UserBuiltin[];
}

/** No guards, no local tools, no builtins. */
export const NO_EXTENSIONS: Extensions = Object.freeze({ guards: [], tools: [], builtins: [] });

/** The options of `createRuntime` (and of a worker or an eval) that carry the extensions. */
export function runtimeExtensions(extensions: Extensions): {
  tools: LocalTool[];
  guards: readonly Guard[];
  builtins: readonly UserBuiltin[];
} {
  return { tools: [...extensions.tools], guards: extensions.guards, builtins: extensions.builtins };
}

/**
 * Loads the `--guards MODULE` and `--tools MODULE` files (each repeatable, relative to the current
 * folder). A module's default export (a guard or tool, or a list of them) and its named exports that
 * are guards or tools (or lists of them) are taken; a `--tools` module's tools are local tools
 * (`defineTool`) and builtins (`defineBuiltin`, docs/builtins.md). A missing file, a module that fails to
 * load, one that exports none, an export that looks like a guard or tool but was not made by
 * `defineGuard` / `defineTool` / `defineBuiltin`, two guards or tools of one name, and codes that clash
 * are usage errors (exit 2).
 */
export async function loadExtensions(parsed: Parsed): Promise<Extensions> {
  const guardFiles = list(parsed, 'guards');
  const toolFiles = list(parsed, 'tools');
  const guards: Guard[] = [];
  for (const file of guardFiles) guards.push(...(await exportsOf(file, GUARDS, toolFiles)));
  const given: (LocalTool | UserBuiltin)[] = [];
  for (const file of toolFiles) given.push(...(await exportsOf(file, TOOLS, guardFiles)));
  try {
    checkGuards(guards);
  } catch (error) {
    throw new UsageError(`--guards: ${(error as Error).message}`, { cause: error });
  }
  const names = new Set<string>();
  const tools: LocalTool[] = [];
  const builtins: UserBuiltin[] = [];
  for (const tool of given) {
    const name = isUserBuiltin(tool) ? tool.name : tool.descriptor.name;
    if (names.has(name)) throw new UsageError(`--tools: two tools are named ${JSON.stringify(name)}`);
    if (name.startsWith('builtin_'))
      throw new UsageError(`--tools: ${name}: names starting builtin_ are the runtime's own tools`);
    names.add(name);
    if (isUserBuiltin(tool)) builtins.push(tool);
    else tools.push(tool);
  }
  try {
    checkBuiltins(
      builtins,
      tools.map((t) => t.descriptor.name),
      guardCodesOf(guards),
    );
  } catch (error) {
    throw new UsageError(`--tools: ${(error as Error).message}`, { cause: error });
  }
  return { guards, tools, builtins };
}

/** The names of the builtins, for the flow checks (a server tool of one of these names is a problem). */
export function builtinNames(extensions: Extensions): string[] {
  return extensions.builtins.map((b) => b.name);
}

/** The names of the local tools and builtins, for the flow checks (`knownTools`). */
export function toolNames(extensions: Extensions): string[] {
  return [...extensions.tools.map((t) => t.descriptor.name), ...extensions.builtins.map((b) => b.name)];
}

function list(parsed: Parsed, name: 'guards' | 'tools'): string[] {
  const value = (parsed.values as Record<string, unknown>)[name];
  const files = Array.isArray(value) ? (value as string[]) : typeof value === 'string' ? [value] : [];
  for (const file of files) if (file.trim() === '') throw new UsageError(`--${name} needs a module file`);
  return files;
}

/** What one flag collects from a module. */
interface Kind<T> {
  readonly flag: '--guards' | '--tools';
  /** One of these, as its flag names it. */
  readonly noun: string;
  readonly maker: string;
  readonly is: (value: unknown) => value is T;
  /** One of what the other flag takes (left to it when the module is given to it too). */
  readonly other: {
    readonly flag: '--guards' | '--tools';
    readonly noun: string;
    readonly is: (value: unknown) => boolean;
  };
  /** True for a value that seems meant as one of these (so that it is refused, not skipped). */
  readonly lookalike: (value: object) => boolean;
}

const GUARDS: Kind<Guard> = {
  flag: '--guards',
  noun: 'guard',
  maker: 'defineGuard',
  is: isGuard,
  other: { flag: '--tools', noun: 'tool', is: (v) => isLocalTool(v) || isUserBuiltin(v) },
  lookalike: (v) => 'before' in v || 'after' in v || 'codes' in v,
};

const TOOLS: Kind<LocalTool | UserBuiltin> = {
  flag: '--tools',
  noun: 'tool',
  maker: 'defineTool or defineBuiltin',
  is: (v): v is LocalTool | UserBuiltin => isLocalTool(v) || isUserBuiltin(v),
  other: { flag: '--guards', noun: 'guard', is: (v) => isGuard(v) },
  lookalike: (v) => 'execute' in v || 'descriptor' in v || 'inputSchema' in v,
};

/** A local tool made by `defineTool` (of any copy of the package): a descriptor of kind `local` and `execute`. */
export function isLocalTool(value: unknown): value is LocalTool {
  if (typeof value !== 'object' || value === null) return false;
  const { descriptor, execute } = value as Partial<LocalTool>;
  return (
    typeof execute === 'function' &&
    typeof descriptor === 'object' &&
    descriptor !== null &&
    typeof descriptor.name === 'string' &&
    descriptor.kind === 'local' &&
    typeof descriptor.inputSchema === 'object'
  );
}

/**
 * The guards or tools a module exports. Exports of the other kind are left to the other flag when the
 * module is given to it too (`otherFiles`), and refused otherwise, so that a guard is never dropped.
 */
async function exportsOf<T>(file: string, kind: Kind<T>, otherFiles: readonly string[]): Promise<T[]> {
  const path = resolve(file);
  const where = `${kind.flag} ${file}`;
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch {
    throw new UsageError(`${where}: no such file`);
  }
  if (!isFile) throw new UsageError(`${where}: not a file`);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(`${where}: the module did not load: ${message.split('\n')[0] ?? message}`, {
      cause: error,
    });
  }
  const found: T[] = [];
  const take = (value: T) => {
    if (!found.includes(value)) found.push(value);
  };
  const alsoOther = otherFiles.some((other) => resolve(other) === path);
  for (const [name, value] of Object.entries(module)) {
    const label = name === 'default' ? 'the default export' : `export ${name}`;
    const all = Array.isArray(value) ? (value as unknown[]) : [value];
    if (!alsoOther && all.some((item) => kind.other.is(item)))
      throw new UsageError(
        `${where}: ${label} is a ${kind.other.noun} or holds one; pass the module with ${kind.other.flag} ${file} too`,
      );
    const items = all.filter((item) => !kind.other.is(item));
    if (items.length === 0) continue;
    const wrong = all.findIndex((item) => !kind.is(item) && !kind.other.is(item));
    const meant = name === 'default' || items.some((item) => kind.is(item)) || items.some(lookalike(kind));
    if (wrong === -1 && items.length > 0) items.forEach((item) => take(item as T));
    else if (meant)
      throw new UsageError(
        `${where}: ${label}${Array.isArray(value) ? `[${wrong}]` : ''} is not a ${kind.noun} made with ${kind.maker}`,
      );
  }
  if (found.length === 0)
    throw new UsageError(
      `${where}: the module exports no ${kind.noun}s (export them, or a list of them, made with ${kind.maker})`,
    );
  return found;
}

function lookalike<T>(kind: Kind<T>): (item: unknown) => boolean {
  return (item) => typeof item === 'object' && item !== null && kind.lookalike(item);
}
