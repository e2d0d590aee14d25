import { createRequire } from 'node:module';

/**
 * node:sqlite, loaded on first use rather than imported: the memory store and the library core must load
 * on a Node without it (and without its experimental-feature warning on Node 22).
 */
export function loadSqlite(): typeof import('node:sqlite') {
  return createRequire(import.meta.url)('node:sqlite') as typeof import('node:sqlite');
}
