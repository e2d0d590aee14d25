import { resolve } from 'node:path';
import { InputFileError, readInputFile } from '../fs/input-file.js';
import type { Flow } from '../domain/flow.js';
import { validateAgainst } from './json-schema.js';

/**
 * The run input (docs/flows.md; docs/cli.md): `--input TEXT` gives `{text: TEXT}`; `--input-json JSON|@file` gives
 * structured input. Either is validated against the flow's `input` schema.
 */

/** A run input that cannot be used; the CLI prints `message` and exits 2 (usage error). */
export class RunInputError extends Error {
  /** The failing fields, one line each (`name: required`); empty for a usage mistake. */
  readonly problems: readonly string[];

  constructor(message: string, problems: readonly string[] = [], options?: ErrorOptions) {
    super(
      problems.length === 0 ? message : `${message}\n${problems.map((p) => `  ${p}`).join('\n')}`,
      options,
    );
    this.name = 'RunInputError';
    this.problems = problems;
  }
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
 * schema. Throws `RunInputError` (exit 2) when both or neither are given (unless the schema accepts
 * `{}`), when `--input` is used on a flow whose schema does not accept `{text}`, when the JSON does not
 * parse or its file cannot be read, or when the value does not match the schema.
 */
export async function resolveRunInput(
  flow: Flow,
  args: RunInputArgs,
  options: ResolveRunInputOptions = {},
): Promise<Record<string, unknown>> {
  if (args.text !== undefined && args.json !== undefined)
    throw new RunInputError('give either --input or --input-json, not both');
  if (args.text !== undefined) {
    const input = { text: args.text };
    const problems = validateRunInput(flow, input);
    if (problems.length > 0) {
      throw new RunInputError(
        `--input gives {text}, which flow "${flow.id}" does not accept as input; give --input-json with input matching its schema`,
        problems,
      );
    }
    return input;
  }
  if (args.json === undefined) {
    const problems = validateRunInput(flow, {});
    if (problems.length > 0)
      throw new RunInputError(
        `flow "${flow.id}" needs an input: give --input TEXT or --input-json JSON|@file`,
        problems,
      );
    return {};
  }
  const input = await parseJsonArg(args.json, options.cwd ?? process.cwd());
  const problems = validateRunInput(flow, input);
  if (problems.length > 0)
    throw new RunInputError(`--input-json does not match the input schema of flow "${flow.id}"`, problems);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new RunInputError('--input-json must be a JSON object');
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
      const reason = error.reason === 'not-found' ? 'file not found' : error.message;
      throw new RunInputError(`${origin}: ${reason}`, [], { cause: error });
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new RunInputError(`${origin} is not valid JSON: ${(error as Error).message}`, [], { cause: error });
  }
}
