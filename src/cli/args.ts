import { AgentRuntimeError } from '../domain/agent-runtime-error.js';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { suggest } from '../flow/problems.js';

/** A mistake on the command line (exit 2). */
export class UsageError extends AgentRuntimeError {
  override readonly name = 'UsageError';
  declare readonly code: 'USAGE';
  constructor(message: string, options?: ErrorOptions) {
    super('USAGE', message, options);
  }
}

/** The options every command takes. */
export const COMMON: ParseArgsOptionsConfig = {
  db: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

/** `--guards MODULE`, `--tools MODULE` (repeatable): the host's own guards, local tools and builtins (docs/interceptors.md). */
export const EXTENSIONS: ParseArgsOptionsConfig = {
  guards: { type: 'string', multiple: true },
  tools: { type: 'string', multiple: true },
};

/** Options of the commands that drive a run. */
export const DRIVING: ParseArgsOptionsConfig = {
  ...COMMON,
  ...EXTENSIONS,
  model: { type: 'string' },
  trace: { type: 'string' },
  durability: { type: 'string' },
};

/** Parsed options: strings and booleans by name, plus positionals. */
export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Parses a command's arguments strictly: an unknown flag or a missing value is a UsageError naming it. */
export function parse(
  command: string,
  argv: string[],
  options: ParseArgsOptionsConfig,
  positionals: { min: number; max: number; names: string },
): Parsed {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${command}: ${optionMessage(error as Error, options)}`, { cause: error });
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) return { values, positionals: parsed.positionals };
  const count = parsed.positionals.length;
  if (count < positionals.min) throw new UsageError(`${command}: missing ${positionals.names}`);
  if (count > positionals.max) {
    throw new UsageError(
      `${command}: unexpected argument ${JSON.stringify(parsed.positionals[positionals.max])}`,
    );
  }
  if (typeof values.durability === 'string' && !['normal', 'strict'].includes(values.durability)) {
    throw new UsageError(
      `${command}: --durability must be normal or strict, not ${JSON.stringify(values.durability)}`,
    );
  }
  return { values, positionals: parsed.positionals };
}

/**
 * parseArgs' message, or for an unknown option a shorter one with the nearest known option
 * (`unknown option --inptu (did you mean "--input"?)`) and where to find the others.
 */
function optionMessage(error: Error, options: ParseArgsOptionsConfig): string {
  if ((error as NodeJS.ErrnoException).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return error.message;
  const given = /option '([^']*)'/.exec(error.message)?.[1];
  if (given === undefined) return error.message;
  const known = Object.keys(options).map((name) => `--${name}`);
  const name = given.split('=')[0] ?? given;
  return `unknown option ${name}${suggest(name, known)}; --help lists the options`;
}

/** A string option's value, or undefined. */
export function str(parsed: Parsed, name: string): string | undefined {
  const v = parsed.values[name];
  return typeof v === 'string' ? v : undefined;
}

/** A repeatable string option's values (each also split at commas when `commas`), or []. */
export function strings(parsed: Parsed, name: string, commas = false): string[] {
  const v = (parsed.values as Record<string, unknown>)[name];
  const all = Array.isArray(v) ? (v as string[]) : typeof v === 'string' ? [v] : [];
  return commas ? all.flatMap((s) => s.split(',')).map((s) => s.trim()) : all;
}

/** A boolean option's value. */
export function flag(parsed: Parsed, name: string): boolean {
  return parsed.values[name] === true;
}

export const USAGE = `usage: agent-runtime <command> [options]

commands:
  run FLOW.yaml (--input TEXT | --input-json JSON|@file) [--thread ID] [--model M] [--db URL] [--trace FILE] [--json]
  chat FLOW.yaml [--thread ID] [--model M]   converse with a flow in the terminal (a thread of runs)
  approve RUN_ID [--comment TEXT]      approve the pending write and continue
  reject RUN_ID [--comment TEXT]       decline the pending write and continue
  answer RUN_ID TEXT                   answer the pending follow-up and continue
                                       (approve/reject/answer --expect ID: only if the run still waits for pending item ID)
  say RUN_ID TEXT                      add a person's words to a running or suspended run (read at its next round)
  resume RUN_ID                        continue a run left running by a dead process
  retry RUN_ID [--model M]             take a failed run up again in the node that failed
  cancel RUN_ID                        cancel a run that has not ended
  status RUN_ID [--json]               show a run
  runs [--status S] [--json]           list runs
  trace RUN_ID [--json]                print a run's trace events (each tool result previewed on one line)
  evidence RUN_ID [EVIDENCE_ID] [--json]   list a run's evidence, or show one record with its full payload
  validate FLOW.yaml [--offline] [--json]   check a flow and print every problem
  init [DIR]                           write a starter project (flow, MCP server, scripted model, test)
  serve [--host H] [--port P] [--flows DIR [--watch]] [--tokens FILE] […]   HTTP API and web console
                                       (serve --help: every option, e.g. --allow-stdio, --allow-env)
  worker --db postgres://… [--concurrency N]                  drive queued runs from a shared PostgreSQL
  eval SUITE.yaml [--model M]… [--repeat N] [--out DIR]      run an eval suite (eval --help: every option)
  fork RUN_ID --at SEQ [--model M] [--flow F]                 a new run continuing from event SEQ of a run
  fake-model --script FILE [--kind openai|anthropic]          a stand-in model API for tests, on loopback

agent-runtime COMMAND --help: that command's options; agent-runtime --version: the version.
every command takes --db URL (default: env AGENT_RUNTIME_DB, else sqlite:.agent-runtime/runtime.db; validate reads none);
the commands that drive a run take --model, --trace FILE, --json and --durability normal|strict;
run, chat, validate, eval, serve, worker, fork, retry and the other run commands take --tools MODULE and
--guards MODULE (local tools and builtins, guards: docs/interceptors.md, docs/builtins.md).
tool results in the trace are cut at env AGENT_RUNTIME_TRACE_RESULT_BYTES bytes of JSON (default 16384; 0: none).

exit codes: 0 completed, 1 failed or cancelled, 2 usage/flow error or unknown run id,
            3 suspended (waiting for a person), 4 the run is not waiting for this input (retry: not failed;
            run --thread: the thread's last run is running or waits for an approval)`;
