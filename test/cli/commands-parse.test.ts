import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import {
  answer,
  cancel,
  decide,
  resume,
  retry,
  run,
  runs,
  status,
  trace,
  type Command,
} from '../../src/cli/commands.js';
import { failureOf } from '../../src/cli/failure.js';
import { RunError } from '../../src/domain/run-error.js';

/**
 * The argument parsing of the run commands (src/cli/commands.ts), in process: each command's
 * positionals, its own options and the error line for a bad flag (docs/cli.md, "Options are strict":
 * exit 2 with one line naming it), all refused before a store is opened; and, on the memory store,
 * that a well-formed command reaches the runtime.
 */

let stdout: string[];
let stderr: string[];
beforeEach(() => {
  stdout = [];
  stderr = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout.push(String(chunk));
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(() => vi.restoreAllMocks());

/** The UsageError a command refuses its arguments with. */
async function usage(command: Command, argv: string[]): Promise<UsageError> {
  const error = await command(argv).then(
    (code) => new Error(`exited ${code} instead of refusing`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

/** The line and exit code the CLI prints for a command's refusal (as `main` reports it). */
async function refusal(command: Command, argv: string[]): Promise<{ exitCode: number; line: string }> {
  return failureOf(await usage(command, argv));
}

const approve = decide('approve');
const reject = decide('reject');

describe('positionals', () => {
  it('a missing one is named; the line and exit code are those of a usage error', async () => {
    expect(await refusal(run, [])).toEqual({ exitCode: 2, line: 'agent-runtime: run: missing FLOW.yaml' });
    expect((await usage(approve, [])).message).toBe('approve: missing RUN_ID');
    expect((await usage(reject, ['--comment', 'no'])).message).toBe('reject: missing RUN_ID');
    expect((await usage(resume, [])).message).toBe('resume: missing RUN_ID');
    expect((await usage(retry, [])).message).toBe('retry: missing RUN_ID');
    expect((await usage(cancel, [])).message).toBe('cancel: missing RUN_ID');
    expect((await usage(status, ['--json'])).message).toBe('status: missing RUN_ID');
    expect((await usage(trace, [])).message).toBe('trace: missing RUN_ID');
    expect((await usage(answer, [])).message).toBe('answer: missing RUN_ID and TEXT');
  });

  it('an extra one is quoted', async () => {
    expect((await usage(run, ['a.yaml', 'b.yaml'])).message).toBe('run: unexpected argument "b.yaml"');
    expect((await usage(status, ['run_1', 'run_2'])).message).toBe('status: unexpected argument "run_2"');
    expect((await usage(answer, ['run_1', 'yes', 'please'])).message).toBe(
      'answer: unexpected argument "please"',
    );
    expect((await usage(runs, ['suspended'])).message).toBe('runs: unexpected argument "suspended"');
    expect((await usage(approve, ['run_1', 'run_2'])).message).toBe('approve: unexpected argument "run_2"');
  });
});

describe('options', () => {
  it('an unknown option names the nearest known one and where the others are listed', async () => {
    expect(await refusal(run, ['a.yaml', '--inptu', 'x'])).toEqual({
      exitCode: 2,
      line: 'agent-runtime: run: unknown option --inptu (did you mean "--input"?); --help lists the options',
    });
    // Given as --name=value, the value is not part of the name shown.
    expect((await usage(run, ['a.yaml', '--inptu=x'])).message).toBe(
      'run: unknown option --inptu (did you mean "--input"?); --help lists the options',
    );
    expect((await usage(approve, ['run_1', '--coment', 'ok'])).message).toBe(
      'approve: unknown option --coment (did you mean "--comment"?); --help lists the options',
    );
  });

  it('an option of another command is unknown here, with no suggestion when nothing is near', async () => {
    expect((await usage(reject, ['run_1', '--args', '{}'])).message).toBe(
      'reject: unknown option --args; --help lists the options',
    );
    expect((await usage(resume, ['run_1', '--comment', 'x'])).message).toBe(
      'resume: unknown option --comment; --help lists the options',
    );
    expect((await usage(cancel, ['run_1', '--model', 'openai:x'])).message).toBe(
      'cancel: unknown option --model; --help lists the options',
    );
    expect((await usage(trace, ['run_1', '--guards', 'g.js'])).message).toBe(
      'trace: unknown option --guards; --help lists the options',
    );
    expect((await usage(status, ['run_1', '--expect', 'pnd_1'])).message).toBe(
      'status: unknown option --expect; --help lists the options',
    );
    expect((await usage(run, ['a.yaml', '-x'])).message).toBe(
      'run: unknown option -x; --help lists the options',
    );
  });

  it('a missing value, and a value given to a flag, are refused with parseArgs’ words', async () => {
    expect((await usage(run, ['a.yaml', '--input'])).message).toBe(
      "run: Option '--input <value>' argument missing",
    );
    expect((await usage(status, ['run_1', '--json=yes'])).message).toBe(
      "status: Option '--json' does not take an argument",
    );
  });

  it('--durability is normal or strict', async () => {
    expect((await usage(run, ['a.yaml', '--durability', 'fast'])).message).toBe(
      'run: --durability must be normal or strict, not "fast"',
    );
    expect((await usage(resume, ['run_1', '--durability', 'FULL'])).message).toBe(
      'resume: --durability must be normal or strict, not "FULL"',
    );
  });

  it('runs --status is one of the five statuses', async () => {
    expect(await refusal(runs, ['--status', 'done'])).toEqual({
      exitCode: 2,
      line: 'agent-runtime: runs: --status must be one of running, suspended, completed, failed, cancelled, not "done"',
    });
    expect((await usage(runs, ['--status', ''])).message).toBe(
      'runs: --status must be one of running, suspended, completed, failed, cancelled, not ""',
    );
  });
});

describe('approve, reject and answer', () => {
  it('approve --args must be a JSON object', async () => {
    expect((await usage(approve, ['run_1', '--args', '{amount: 5}'])).message).toMatch(
      /^approve: --args is not JSON: /,
    );
    for (const text of ['[1]', 'null', '5', '"x"'])
      expect((await usage(approve, ['run_1', '--args', text])).message, text).toBe(
        'approve: --args must be a JSON object of the arguments, e.g. {"amount": 50}',
      );
  });

  it('--expect needs an id', async () => {
    for (const [name, command] of [
      ['approve', approve],
      ['reject', reject],
      ['answer', answer],
    ] as const)
      expect(
        (await usage(command, ['run_1', '--expect', '', ...(command === answer ? ['yes'] : [])])).message,
      ).toBe(`${name}: --expect needs the pending item id (see \`status RUN_ID --json\`)`);
  });

  it('answer needs TEXT or --decline/--cancel, never both, and not both flags', async () => {
    expect((await usage(answer, ['run_1'])).message).toBe(
      'answer: missing RUN_ID and TEXT (or --decline, --cancel)',
    );
    expect((await usage(answer, ['run_1', '--decline', '--cancel'])).message).toBe(
      'answer takes --decline or --cancel, not both',
    );
    expect((await usage(answer, ['run_1', 'yes', '--decline'])).message).toBe(
      'answer --decline takes no TEXT',
    );
    expect((await usage(answer, ['run_1', '--cancel', 'no'])).message).toBe('answer --cancel takes no TEXT');
  });

  it('approve --args is checked before --expect is looked at and before any store', async () => {
    expect((await usage(approve, ['run_1', '--expect', '', '--args', '[]'])).message).toBe(
      'approve: --expect needs the pending item id (see `status RUN_ID --json`)',
    );
    expect(
      (await usage(approve, ['run_1', '--args', '[]', '--db', 'sqlite:/nonexistent-folder-xyz/x.db']))
        .message,
    ).toBe('approve: --args must be a JSON object of the arguments, e.g. {"amount": 50}');
  });
});

describe('run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'commands-parse-'));
  const flow = join(dir, 'flow.yaml');
  writeFileSync(flow, 'id: hello\nlocale: en\nnodes:\n  - id: work\n');

  it('--thread needs a thread id', async () => {
    expect(await refusal(run, [flow, '--thread', '', '--input', 'hi'])).toEqual({
      exitCode: 2,
      line: 'agent-runtime: run: --thread needs a thread id',
    });
  });

  it('--input and --input-json together are refused as run input (exit 2), before a store is opened', async () => {
    const error = await run([
      flow,
      '--input',
      'hi',
      '--input-json',
      '{}',
      '--db',
      'sqlite:/nonexistent-xyz/x.db',
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).code).toBe('INPUT_INVALID');
    expect((error as RunError).message).toContain('give either --input or --input-json, not both');
    expect(failureOf(error).exitCode).toBe(2);
  });
});

describe('reaching the runtime (memory store)', () => {
  it('runs --json prints the list as one JSON line on stdout', async () => {
    expect(await runs(['--db', 'memory', '--json'])).toBe(0);
    expect(stdout.join('')).toBe('[]\n');
  });

  it('runs prints a table with its header, filtered by a valid --status', async () => {
    expect(await runs(['--status', 'suspended', '--db', 'memory'])).toBe(0);
    expect(stdout.join('').split('\n')[0]?.split(/\s+/)).toEqual([
      'RUN_ID',
      'STATUS',
      'FLOW',
      'UPDATED',
      'PARENT',
    ]);
  });

  it('options may come before the positional: an unknown run is RUN_NOT_FOUND, exit 2', async () => {
    const error = await status(['--db', 'memory', 'run_nope']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect(failureOf(error)).toEqual({ exitCode: 2, line: 'agent-runtime: unknown run id run_nope' });
    for (const command of [cancel, resume, trace]) {
      const e = await command(['run_nope', '--db', 'memory']).catch((x: unknown) => x);
      expect((e as RunError).code).toBe('RUN_NOT_FOUND');
    }
  });

  it('--db naming a SQLite file in a missing folder is refused before anything is opened', async () => {
    expect(await refusal(status, ['run_1', '--db', 'sqlite:/nonexistent-folder-xyz/x.db'])).toEqual({
      exitCode: 2,
      line: 'agent-runtime: --db sqlite:/nonexistent-folder-xyz/x.db: the folder /nonexistent-folder-xyz does not exist; create it first (mkdir -p), or leave --db out to use the default store .agent-runtime/runtime.db',
    });
  });
});
