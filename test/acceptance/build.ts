import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root, the built CLI, and the Node binary the project pins (node:sqlite needs Node 22.13+). */
export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const CLI = join(REPO_ROOT, 'dist/src/cli/main.js');
const PINNED_NODE = join(REPO_ROOT, 'node_modules/.bin/node');
export const NODE = existsSync(PINNED_NODE) ? PINNED_NODE : process.execPath;

const LOCK = join(REPO_ROOT, 'dist/.acceptance-build.lock');
const STALE_LOCK_MS = 180_000;

/** The newest modification time of the files under `dir` (0 for none). */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newest(path) : statSync(path).mtimeMs;
    if (time > latest) latest = time;
  }
  return latest;
}

/** True when the built CLI exists and is newer than every file under src/. */
function fresh(): boolean {
  return existsSync(CLI) && statSync(CLI).mtimeMs >= newest(join(REPO_ROOT, 'src'));
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** How long ago the lock was taken (0 when it has just been released). */
function lockAge(): number {
  try {
    return Date.now() - statSync(LOCK).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

/** Takes the build lock (a directory, created atomically); false when another process holds it. */
function tryLock(): boolean {
  mkdirSync(join(REPO_ROOT, 'dist'), { recursive: true });
  try {
    mkdirSync(LOCK);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (lockAge() > STALE_LOCK_MS)
      rmSync(LOCK, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    return false;
  }
}

/**
 * Makes sure `dist/src/cli/main.js` is built from the current sources: when it is missing or older
 * than any file under src/, runs `tsc -p tsconfig.build.json` once. A lock directory keeps parallel
 * test files from building twice (the others wait, then see a fresh build). Type errors elsewhere in
 * the tree do not stop the acceptance tests as long as tsc emitted the CLI (tsc emits despite them);
 * they are printed, and `npm test`'s typecheck reports them.
 */
export function ensureBuilt(): void {
  const deadline = Date.now() + STALE_LOCK_MS;
  while (!fresh()) {
    if (!tryLock()) {
      if (Date.now() > deadline) throw new Error(`acceptance: waited too long for the build lock ${LOCK}`);
      sleepSync(200);
      continue;
    }
    try {
      if (!fresh()) build();
    } finally {
      rmSync(LOCK, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    }
  }
}

function build(): void {
  const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
  try {
    execFileSync(NODE, [tsc, '-p', 'tsconfig.build.json'], {
      cwd: REPO_ROOT,
      stdio: 'pipe',
      encoding: 'utf8',
    });
  } catch (error) {
    const output = (error as { stdout?: string }).stdout ?? String(error);
    if (!fresh()) throw new Error(`acceptance: building the CLI failed:\n${output}`, { cause: error });
    process.stderr.write(`acceptance: tsc reported errors but emitted the CLI:\n${output}\n`);
  }
}
