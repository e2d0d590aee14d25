import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { parse } from 'yaml';
import { isFlowDocument } from '../flow/recognise.js';

/** Files that may hold a flow, by name. */
const CANDIDATE = /\.(ya?ml|json)$/i;
/** A flow file larger than this is not read (it is not a flow anyone wrote by hand). */
const MAX_BYTES = 1024 * 1024;
const MAX_DEPTH = 8;
const MAX_FILES = 2000;

/** What a scan of a `--flows` folder found. */
export interface FlowScan {
  /** Flow files (absolute paths), sorted. */
  readonly flows: string[];
  /** YAML/JSON files that are not flows, relative to the folder (`package.json`, `turns.yaml`…). */
  readonly skipped: string[];
}

/** Whether a folder is searched for flows: not `node_modules`, not hidden (`.git`, `.agent-runtime`). */
export function searchedFolder(name: string): boolean {
  return name !== 'node_modules' && !name.startsWith('.');
}

/** Whether a path inside the flows folder could be a flow file: a YAML/JSON name, in no skipped folder. */
export function candidatePath(relativePath: string): boolean {
  const parts = relativePath.split(/[\\/]/);
  return CANDIDATE.test(relativePath) && parts.slice(0, -1).every(searchedFolder);
}

/**
 * Finds the flow files under `dir`, recursively (up to 8 levels, 2000 candidate files; `node_modules`
 * and hidden folders are left out), recognising a flow by its content — a mapping with `nodes` and
 * `id` (or `mcpServers`) — not by its name.
 */
export async function scanFlowFiles(dir: string): Promise<FlowScan> {
  const flows: string[] = [];
  const skipped: string[] = [];
  const candidates = await candidateFiles(dir, 0, []);
  for (const file of candidates) {
    if (await isFlowFile(file)) flows.push(file);
    else skipped.push(relative(dir, file).split(sep).join('/'));
  }
  return { flows, skipped };
}

async function candidateFiles(dir: string, depth: number, found: string[]): Promise<string[]> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (found.length >= MAX_FILES) break;
    const path = join(dir, entry.name);
    if (entry.isFile() && CANDIDATE.test(entry.name)) found.push(path);
    else if (entry.isDirectory() && searchedFolder(entry.name) && depth < MAX_DEPTH)
      await candidateFiles(path, depth + 1, found);
  }
  return found;
}

/**
 * Whether the file holds a flow: a YAML or JSON mapping with `nodes` and `id` or `mcpServers`. A YAML
 * file that does not parse still counts when it has top-level `id:` and `nodes:` lines, so that loading
 * it reports its problems. Files over 1 MiB are not flows.
 */
export async function isFlowFile(file: string): Promise<boolean> {
  const info = await stat(file);
  if (!info.isFile() || info.size > MAX_BYTES) return false;
  const text = await readFile(file, 'utf8');
  if (extname(file).toLowerCase() === '.json')
    return isFlowDocument(parseOrNull(() => JSON.parse(text) as unknown));
  const value = parseOrNull(() => parse(text, { maxAliasCount: 100 }) as unknown);
  if (value !== null) return isFlowDocument(value);
  return /^id\s*:/m.test(text) && /^nodes\s*:/m.test(text);
}

/** The parsed value, or null when the text does not parse (then it is simply not a flow). */
function parseOrNull(read: () => unknown): unknown {
  try {
    return read() ?? null;
  } catch (error) {
    if (error instanceof Error) return null;
    throw error;
  }
}
