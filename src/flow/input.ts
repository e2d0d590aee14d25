import { resolve } from 'node:path';
import { InputFileError, readInputFile } from '../fs/input-file.js';
import type { Flow } from '../domain/flow.js';
import { inputMessage, RunError } from '../domain/run-error.js';
import { validateAgainst } from './json-schema.js';

/**
 * The run input (docs/flows.md; docs/cli.md): `--input TEXT` gives `{text: TEXT}`; `--input-json JSON|@file` gives
 * structured input. Either is validated against the flow's `input` schema.
 */

/** The deprecated name of `RunError` INPUT_INVALID, kept where it has always been importable from. */

/** A run input that cannot be used (INPUT_INVALID): `message`, then each failing field on its own line. */
function inputError(message: string, problems: readonly string[] = [], cause?: unknown): RunError {
  return new RunError('INPUT_INVALID', inputMessage(message, problems), {
    problems,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** What the command line gave: `--input TEXT` and/or `--input-json JSON|@file`. */
export interface RunInputArgs {
  readonly text?: string;
  readonly json?: string;
}

/** Options of `resolveRunInput`. */
export interface ResolveRunInputOptions {
  /** Where `@file` paths resolve (default: the current directory). */
  readonly cwd?: string;
}

/** The failing fields of `input` against the flow's input schema, one line each; empty when valid. */
export function validateRunInput(flow: Flow, input: unknown): string[] {
  return validateAgainst(flow.input, input);
}

/**
 * Builds the run input from `--input` / `--input-json` and validates it against the flow's input
 * schema. Throws `RunError` INPUT_INVALID (exit 2) when both or neither are given (unless the schema accepts
 * `{}`), when `--input` is used on a flow whose schema does not accept `{text}`, when the JSON does not
 * parse or its file cannot be read, or when the value does not match the schema.
 */
export async function resolveRunInput(
  flow: Flow,
  args: RunInputArgs,
  options: ResolveRunInputOptions = {},
): Promise<Record<string, unknown>> {
  if (args.text !== undefined && args.json !== undefined)
    throw inputError('give either --input or --input-json, not both');
  if (args.text !== undefined) {
    const input = { text: args.text };
    const problems = validateRunInput(flow, input);
    if (problems.length > 0) {
      throw inputError(
        `--input gives {text}, which flow "${flow.id}" does not accept as input; give --input-json with input matching its schema`,
        problems,
      );
    }
    return input;
  }
  if (args.json === undefined) {
    const problems = validateRunInput(flow, {});
    if (problems.length > 0)
      throw inputError(
        `flow "${flow.id}" needs an input: give --input TEXT or --input-json JSON|@file`,
        problems,
      );
    return {};
  }
  const input = await parseJsonArg(args.json, options.cwd ?? process.cwd());
  const problems = validateRunInput(flow, input);
  if (problems.length > 0)
    throw inputError(`--input-json does not match the input schema of flow "${flow.id}"`, problems);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw inputError('--input-json must be a JSON object');
  }
  return input as Record<string, unknown>;
}

async function parseJsonArg(arg: string, cwd: string): Promise<unknown> {
  let text = arg;
  let origin = '--input-json';
  if (arg.startsWith('@')) {
    const file = resolve(cwd, arg.slice(1));
    origin = `--input-json file ${arg.slice(1)}`;
    try {
      text = await readInputFile(file);
    } catch (error) {
      if (!(error instanceof InputFileError)) throw error;
      const reason = error.code === 'NOT_FOUND' ? 'file not found' : error.message;
      throw inputError(`${origin}: ${reason}`, [], error);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw inputError(`${origin} is not valid JSON: ${(error as Error).message}`, [], error);
  }
}
