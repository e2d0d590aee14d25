import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const HOOKS = fileURLToPath(new URL('./ts-hooks.mjs', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./store-child.ts', import.meta.url));

/** A running store-child.ts process (a real second `node` process on the same SQLite file). */
export interface StoreChild {
  process: ChildProcessWithoutNullStreams;
  /** The next line it printed on stdout; rejects if it exits first (with its stderr). */
  nextLine(): Promise<string>;
  /** Its exit code once it ended (null when killed by a signal). */
  exited: Promise<number | null>;
  stderr(): string;
}

/** Starts store-child.ts with the same node binary running the tests. */
export function spawnStoreChild(args: string[]): StoreChild {
  const child = spawn(
    process.execPath,
    [
      '--experimental-transform-types',
      '--disable-warning=ExperimentalWarning',
      '--import',
      HOOKS,
      SCRIPT,
      ...args,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    process: child,
    exited,
    stderr: () => stderr,
    async nextLine() {
      const next = await lines.next();
      if (next.done === true) {
        await exited;
        throw new Error(`child ${args.join(' ')} ended without output; stderr:\n${stderr}`);
      }
      return next.value;
    },
  };
}

/** Runs a child to its end and returns its single JSON line. */
export async function runStoreChild<T>(args: string[]): Promise<T> {
  const child = spawnStoreChild(args);
  const line = await child.nextLine();
  const code = await child.exited;
  if (code !== 0) throw new Error(`child ${args.join(' ')} exited ${code}; stderr:\n${child.stderr()}`);
  return JSON.parse(line) as T;
}
