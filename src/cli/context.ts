import {
  accessSync,
  appendFileSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
} from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { createStderrLogger, isLogLevel, type LogLevel } from '../log/logger.js';
import { createRuntime, type Runtime } from '../runtime/create.js';
import type { StoredEvent } from '../store/store.js';
import { parseStoreUrl, resolveDbUrl } from '../store/open.js';
import { UsageError, flag, str, type Parsed } from './args.js';
import { NO_EXTENSIONS, runtimeExtensions, type Extensions } from './extensions.js';
import { ProgressWriter } from './progress.js';
import { TraceRenderer } from './render.js';
import { shellWord } from './text.js';

/** What a command runs with: the runtime, how it talks to the terminal, and where output goes. */
export interface CliContext {
  runtime: Runtime;
  json: boolean;
  /** True when approvals and follow-ups may be asked inline. */
  interactive: boolean;
  renderer: TraceRenderer | null;
  /** The stderr writer keeping progress, logs and streamed text in order; flush it before a command ends. */
  progress: ProgressWriter;
  /** Flags a printed follow-up command needs to reach the same run (` --db URL` when not the default), or ''. */
  continueFlags: string;
  /** How a printed follow-up command starts: `agent-runtime`, or `npx agent-runtime` when that is not on PATH. */
  continueCommand: string;
  out: (text: string) => void;
  err: (text: string) => void;
  /** The flow file this command was given (`run FLOW`), named in printed follow-ups instead of a placeholder. */
  flowFile?: string;
}

/**
 * Builds the runtime for a command from its options (--db, --trace, --durability, --json), with the
 * guards and local tools of its --guards / --tools modules (`loadExtensions`) when it drives runs.
 */
export function cliContext(parsed: Parsed, extensions: Extensions = NO_EXTENSIONS): CliContext {
  const json = flag(parsed, 'json');
  const tty = Boolean(process.stderr.isTTY);
  const progress = new ProgressWriter((text) => void process.stderr.write(text));
  process.once('exit', () => progress.flush());
  const err = (text: string) => progress.lines(text);
  const out = (text: string) => void process.stdout.write(text);
  const renderer = new TraceRenderer(progress, tty && !process.env.NO_COLOR, tty);
  const sinks: ((event: StoredEvent) => void)[] = [renderer.onEvent];
  const traceFile = str(parsed, 'trace');
  if (traceFile) sinks.push(traceWriter(resolve(traceFile)));
  // A streaming model's text is shown live: each run this command reports on is followed from its first event.
  const followed = new Set<string>();
  const follow = (runId: string): void => {
    if (followed.has(runId)) return;
    followed.add(runId);
    runtime.deltas(runId, renderer.onDelta);
  };
  const runtime = createRuntime({
    store: resolveDbUrl({ db: cliDb(parsed) }),
    ...runtimeExtensions(extensions),
    storeOptions: str(parsed, 'durability') === 'strict' ? { durability: 'strict' } : {},
    // The command's process is where settings come from, said here rather than left to a default.
    env: process.env,
    cwd: process.cwd(),
    // In a terminal the readable trace stands in for the INFO lines (`TOOL invoked …`); the env brings them back.
    logger: createStderrLogger({ level: logLevel(tty), write: (line) => progress.log(line) }),
    onEvent: (event) => {
      follow(event.runId);
      for (const sink of sinks) sink(event);
    },
  });
  return {
    runtime,
    json,
    interactive: !json && tty && Boolean(process.stdin.isTTY),
    renderer,
    progress,
    continueFlags: continueFlags(str(parsed, 'db')),
    continueCommand: cliInvocation(),
    out,
    err,
  };
}

/**
 * The `--db` value (else env `AGENT_RUNTIME_DB`), refused when it names a SQLite file in a folder that
 * does not exist: a typo must not create a new, empty store somewhere. The default store's folder
 * (`.agent-runtime/` under the current directory) is created as needed.
 */
export function cliDb(parsed: Parsed): string | undefined {
  const given = str(parsed, 'db');
  const chosen = [given, process.env.AGENT_RUNTIME_DB].find((v) => v !== undefined && v.trim() !== '');
  if (chosen === undefined) return given;
  const location = parseStoreUrl(chosen);
  if (location.kind === 'sqlite' && location.path !== ':memory:' && !existsSync(dirname(location.path))) {
    const origin = chosen === given ? '--db' : 'AGENT_RUNTIME_DB';
    throw new UsageError(
      `${origin} ${chosen.trim()}: the folder ${dirname(location.path)} does not exist; create it first (mkdir -p), or leave ${origin} out to use the default store .agent-runtime/runtime.db`,
    );
  }
  return given;
}

/** ` --db URL` when `--db` names another store than the one a command without it would open, else ''. */
export function continueFlags(db: string | undefined): string {
  if (db === undefined || db.trim() === '' || db.trim() === resolveDbUrl({})) return '';
  return ` --db ${shellWord(db.trim())}`;
}

/**
 * How a printed command should start so that it works as printed: `agent-runtime` when an executable
 * of that name is on the user's PATH (a global install), else `npx agent-runtime` (a project's local
 * install). `node_modules/.bin` folders are not the user's PATH: npx and npm scripts add them for the
 * command they start only, so a command run by `npx agent-runtime` must still print the npx form.
 */
export function cliInvocation(env: NodeJS.ProcessEnv = process.env): string {
  const names = process.platform === 'win32' ? ['agent-runtime.cmd', 'agent-runtime.exe'] : ['agent-runtime'];
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '' || /[\\/]node_modules[\\/]\.bin[\\/]?$/.test(dir)) continue;
    if (names.some((name) => isExecutable(join(dir, name)))) return 'agent-runtime';
  }
  return 'npx agent-runtime';
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'ENOTDIR' || code === 'ELOOP') return false;
    throw error;
  }
}

/**
 * Appends each event as one JSON line, synchronously, so a killed process loses nothing it reported.
 * A trace holds what the database does (inputs, tool results): the file is created 0600, in folders
 * created 0700, and an existing file is made 0600 before anything is written (existing folders keep
 * their mode).
 */
function traceWriter(file: string): (event: StoredEvent) => void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  makePrivate(file);
  return (event) => appendFileSync(file, `${JSON.stringify(event)}\n`, { mode: 0o600 });
}

/** File system refusals of a `--trace` file that are the user's to fix (exit 2). */
const TRACE_FILE_ERRORS = new Set(['EACCES', 'EPERM', 'EISDIR', 'ENOTDIR', 'EROFS', 'ELOOP']);

/**
 * Creates `file` 0600, or makes an existing regular file 0600 (a device such as /dev/stdout is left
 * alone). A file that cannot be opened, or whose mode the user may not change (another user's), is a
 * usage error.
 */
function makePrivate(file: string): void {
  try {
    const fd = openSync(file, 'a', 0o600);
    try {
      const stat = fstatSync(fd);
      if (stat.isFile() && (stat.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined || !TRACE_FILE_ERRORS.has(code)) throw error;
    throw new UsageError(`--trace ${file}: cannot write a private (0600) trace file there: ${code}`, {
      cause: error,
    });
  }
}

function logLevel(tty: boolean): LogLevel {
  const wanted = process.env.AGENT_RUNTIME_LOG_LEVEL;
  if (wanted !== undefined && isLogLevel(wanted)) return wanted;
  return tty ? 'warn' : 'info';
}
