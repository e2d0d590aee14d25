#!/usr/bin/env node
import '../node-guard.js';
import { USAGE } from './args.js';
import { failureOf } from './failure.js';
import { answer, cancel, decide, resume, retry, run, runs, status, trace, type Command } from './commands.js';
import { validate } from './validate.js';
import { evidence } from './evidence.js';
import { say } from './say.js';
import { suggest } from '../flow/problems.js';
import { COMMAND_HELP, packageVersion } from './usage.js';
import { visible } from './visible.js';

const COMMANDS: Record<string, Command> = {
  run,
  approve: decide('approve'),
  reject: decide('reject'),
  answer,
  say,
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
  mcp: async (argv) => (await import('./mcp.js')).mcp(argv),
  eval: async (argv) => (await import('./eval.js')).evalCommand(argv),
  fork: async (argv) => (await import('./fork.js')).fork(argv),
  chat: async (argv) => (await import('./chat.js')).chat(argv),
  'fake-model': async (argv) => (await import('./fake-model.js')).fakeModel(argv),
};

/** Runs the CLI with `argv` (without node and script) and returns the exit code (docs/cli.md). */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' && rest[0] !== undefined ? COMMAND_HELP[rest[0]] : undefined;
    process.stderr.write(`${topic ?? USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    const hint = suggest(name, Object.keys(COMMANDS));
    process.stderr.write(
      `agent-runtime: unknown command ${visible(JSON.stringify(name))}${hint}\n${USAGE}\n`,
    );
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stderr.write(`${COMMAND_HELP[name] ?? USAGE}\n`);
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
  // A message may quote a flow, a model or a server: its control characters are shown, not obeyed.
  process.stderr.write(`${visible(failure.line, { keepLines: true })}\n`);
  if (failure.exitCode === 1 && process.env.AGENT_RUNTIME_DEBUG && error instanceof Error)
    process.stderr.write(`${error.stack ?? ''}\n`);
  return failure.exitCode;
}

process.exit(await main(process.argv.slice(2)));
