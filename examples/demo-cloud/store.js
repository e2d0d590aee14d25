// @ts-check
/**
 * The demo cloud's state: one JSON file in a data folder, read and written synchronously on every call so
 * that restarts, several processes and the stateless HTTP mode all see the same data. Every executed write
 * is appended to `writes.jsonl` (tests read it to prove a write ran once); every cancelled slow query is
 * appended to `cancelled.jsonl`.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * @typedef {{ spaceId: string, name: string }} Space
 * @typedef {{ siteId: string, spaceId: string, name: string, plan: string, status: 'CREATING' | 'ACTIVE', gets: number }} Site
 * @typedef {{ code: number | string, message: string, data?: unknown }} Reply
 * @typedef {{ spaces: Space[], sites: Site[], nextSiteNo: number, idempotency: Record<string, Reply> }} State
 */

/** The data folder: env DEMO_CLOUD_DATA, else a fixed folder under the system temp dir (so it survives restarts). */
export function dataDir() {
  const configured = process.env.DEMO_CLOUD_DATA;
  const dir = configured ? resolve(configured) : join(tmpdir(), 'g2rain-demo-cloud');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** @returns {State} */
function seed() {
  return {
    spaces: [
      { spaceId: 's1', name: '默认空间' },
      { spaceId: 's2', name: '测试空间' },
    ],
    sites: [],
    nextSiteNo: 1,
    idempotency: {},
  };
}

/** Reads the state, seeding it on first use. @param {string} dir @returns {State} */
export function load(dir) {
  const file = join(dir, 'state.json');
  if (!existsSync(file)) {
    const state = seed();
    save(dir, state);
    return state;
  }
  /** @type {unknown} */
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  return /** @type {State} */ (raw);
}

/** Writes the state atomically (temp file + rename). @param {string} dir @param {State} state */
export function save(dir, state) {
  const file = join(dir, 'state.json');
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state, null, 2));
  renameSync(tmp, file);
}

/**
 * Appends one executed write to `writes.jsonl`.
 * @param {string} dir
 * @param {{ tool: string, args: unknown, idempotencyKey: string | null, reply: Reply }} entry
 */
export function logWrite(dir, entry) {
  appendFileSync(
    join(dir, 'writes.jsonl'),
    `${JSON.stringify({ ts: new Date().toISOString(), pid: process.pid, ...entry })}\n`,
  );
}

/**
 * Appends one cancelled call to `cancelled.jsonl`.
 * @param {string} dir
 * @param {{ tool: string, afterMs: number, reason: string }} entry
 */
export function logCancel(dir, entry) {
  appendFileSync(
    join(dir, 'cancelled.jsonl'),
    `${JSON.stringify({ ts: new Date().toISOString(), pid: process.pid, ...entry })}\n`,
  );
}
