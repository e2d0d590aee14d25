#!/usr/bin/env node
import '../node-guard.js';
import { FlowError } from '../flow/problems.js';
import { RunInputError } from '../flow/input.js';
import { RunConflictError, RunNotFoundError, RuntimeInputError } from '../runtime/errors.js';
import { StoreError } from '../store/store.js';
import { USAGE, UsageError } from './args.js';
import { answer, cancel, decide, resume, retry, run, runs, status, trace, type Command } from './commands.js';
import { validate } from './validate.js';
import { evidence } from './evidence.js';
import { SERVE_USAGE } from './serve-usage.js';

/** Usage texts of commands that have their own (the others print the general usage). */
const HELP: Record<string, string> = { serve: SERVE_USAGE };

const COMMANDS: Record<string, Command> = {
  run,
  approve: decide('approve'),
  reject: decide('reject'),
  answer,
  resume,
  retry,
  cancel,
  status,
  runs,
  trace,
  evidence,
  validate,
  // Loaded on demand: the HTTP server and the queue worker bring heavy dependencies.
  serve: async (argv) => (await import('./serve.js')).serve(argv),
  worker: async (argv) => (await import('./worker.js')).worker(argv),
  init: async (argv) => (await import('./init.js')).init(argv),
};

/** Runs the CLI with `argv` (without node and script) and returns the exit code (docs/cli.md). */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stderr.write(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`agent-runtime: unknown command ${JSON.stringify(name)}\n${USAGE}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stderr.write(`${HELP[name] ?? USAGE}\n`);
    return 0;
  }
  try {
    return await command(rest);
  } catch (error) {
    return report(error);
  }
}

/** Prints an error as one clear message (never a stack trace for bad input) and picks the exit code. */
function report(error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof FlowError) {
    process.stderr.write(`${message}\n`);
    return 2;
  }
  if (error instanceof UsageError || error instanceof RunInputError || error instanceof RuntimeInputError) {
    process.stderr.write(`agent-runtime: ${message}\n`);
    return 2;
  }
  if (error instanceof RunNotFoundError) {
    process.stderr.write(`agent-runtime: ${message}\n`);
    return 2;
  }
  if (error instanceof RunConflictError) {
    process.stderr.write(`agent-runtime: ${message} (nothing changed)\n`);
    return 4;
  }
  if (error instanceof StoreError) {
    process.stderr.write(`agent-runtime: store: ${message}\n`);
    return 2;
  }
  process.stderr.write(`agent-runtime: internal error: ${message}\n`);
  if (process.env.AGENT_RUNTIME_DEBUG && error instanceof Error)
    process.stderr.write(`${error.stack ?? ''}\n`);
  return 1;
}

process.exit(await main(process.argv.slice(2)));
