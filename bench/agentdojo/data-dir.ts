import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The folder holding the port's data (bench/agentdojo/data), found by walking up from this module:
 * the same from the TypeScript source (bench/agentdojo) and from its build (dist/bench/agentdojo).
 */
export function dataDir(): string {
  let dir = import.meta.dirname;
  for (;;) {
    const candidate = join(dir, 'bench', 'agentdojo', 'data');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`bench/agentdojo/data not found above ${import.meta.dirname}`);
    dir = parent;
  }
}
