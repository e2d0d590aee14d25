#!/usr/bin/env node
import '../node-guard.js';
import { USAGE } from './args.js';
import { failureOf } from './failure.js';
import { answer, cancel, decide, resume, retry, run, runs, status, trace, type Command } from './commands.js';
import { validate } from './validate.js';
import { evidence } from './evidence.js';
import { SERVE_USAGE } from './serve-usage.js';
import { EVAL_USAGE } from './eval-usage.js';

/** Usage texts of commands that have their own (the others print the general usage). */
const HELP: Record<string, string> = { serve: SERVE_USAGE, eval: EVAL_USAGE };

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
  eval: async (argv) => (await import('./eval.js')).evalCommand(argv),
  fork: async (argv) => (await import('./fork.js')).fork(argv),
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
  const failure = failureOf(error);
  process.stderr.write(`${failure.line}\n`);
  if (failure.exitCode === 1 && process.env.AGENT_RUNTIME_DEBUG && error instanceof Error)
    process.stderr.write(`${error.stack ?? ''}\n`);
  return failure.exitCode;
}

process.exit(await main(process.argv.slice(2)));
