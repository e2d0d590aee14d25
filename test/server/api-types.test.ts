/**
 * The console's API types (web/src/api-types.ts) are generated from the OpenAPI document the server
 * serves (`npm run api:types`): this fails while the committed file is out of date with the routes.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiBody, ApiResponse, EvidenceRecord, RunSummary, TraceEvent } from '../../web/src/api.js';
import type { ThreadView } from '../../web/src/threads-api.js';
import { ensureBuilt, NODE, REPO_ROOT } from '../acceptance/build.js';

const run = promisify(execFile);
const SCRIPT = join(REPO_ROOT, 'scripts/api-types.mjs');
const COMMITTED = join(REPO_ROOT, 'web/src/api-types.ts');

/** Runs the script with `args`: its exit code and what it printed. */
async function apiTypes(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(NODE, [SCRIPT, ...args], { cwd: REPO_ROOT, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** `true` only when A and B are the same type (checked by the compiler: `npm run typecheck`). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The console's typed client finds its routes' answers in the generated file (a lookup that missed is `never`). */
const typed = {
  runs: true satisfies Same<ApiResponse<'/v1/runs', 'get'>, RunSummary[]>,
  started: true satisfies Same<ApiResponse<'/v1/runs', 'post', 201>, RunSummary>,
  evidence: true satisfies Same<ApiResponse<'/v1/runs/{id}/evidence', 'get'>, EvidenceRecord[]>,
  thread: true satisfies Same<ThreadView['runs'], RunSummary[]>,
  events: true satisfies Same<TraceEvent['seq'], number>,
  forkBody: true satisfies Same<ApiBody<'/v1/runs/{id}/fork', 'post'>['at'], number>,
  // A status the route does not answer with finds nothing.
  missing: true satisfies Same<ApiResponse<'/v1/runs', 'post'>, never>,
};

let dir: string;
beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'api-types-'));
}, 300_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('web/src/api-types.ts', () => {
  it("gives the console's client the types of the routes it calls", () => {
    expect(Object.values(typed).every((same) => same)).toBe(true);
  });

  it('is what the OpenAPI document the server serves gives (npm run api:types)', async () => {
    const checked = await apiTypes('--check');
    expect(checked.stderr).toBe('');
    expect(checked.code).toBe(0);
    expect(await readFile(COMMITTED, 'utf8')).toMatch(/'\/v1\/runs\/\{id\}': \{/);
  }, 150_000);

  it('is reported out of date when a route changed, and written anew', async () => {
    const stale = join(dir, 'api-types.ts');
    const committed = await readFile(COMMITTED, 'utf8');
    // As if the server had gained a field the file does not know yet.
    await writeFile(
      stale,
      committed.replace(/\n {4}RunSummary: \{\n/, '\n    RunSummary: {\n      added?: string;\n'),
    );
    const checked = await apiTypes('--check', '--out', stale);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(/api-types\.ts is out of date .*run `npm run api:types`/);
    const written = await apiTypes('--out', stale);
    expect(written.code).toBe(0);
    expect(await readFile(stale, 'utf8')).toBe(committed);
  }, 300_000);
});
