import { chmodSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DRIVING, UsageError, parse } from '../../src/cli/args.js';
import { cliContext } from '../../src/cli/context.js';

/**
 * Issue 13, lower holes: `--trace FILE` onto an existing file kept the file's mode, so a trace
 * (inputs, tool results — what the database holds) appended to a 0644 file was readable by every
 * local user. The file is now made 0600 before anything is written to it.
 */

function context(trace: string) {
  return cliContext(
    parse('run', ['--db', 'memory', '--trace', trace], DRIVING, { min: 0, max: 0, names: '' }),
  );
}

describe('--trace FILE', () => {
  it('makes an existing file 0600 before writing to it, and keeps what it held', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sec-trace-'));
    for (const mode of [0o644, 0o666, 0o640, 0o604]) {
      const file = join(dir, `run-${mode.toString(8)}.jsonl`);
      writeFileSync(file, '{"earlier":true}\n');
      chmodSync(file, mode);
      const ctx = context(file);
      expect(statSync(file).mode & 0o777, mode.toString(8)).toBe(0o600);
      expect(statSync(file).size).toBe('{"earlier":true}\n'.length);
      await ctx.runtime.close();
    }
  });

  it('creates a missing file 0600 and leaves a device such as /dev/null alone', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sec-trace-')), 'deep', 'run.jsonl');
    const ctx = context(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await ctx.runtime.close();
    const before = statSync('/dev/null').mode;
    const devnull = context('/dev/null');
    expect(statSync('/dev/null').mode).toBe(before);
    await devnull.runtime.close();
  });

  it('refuses a folder as the trace file with a usage error (exit 2)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sec-trace-'));
    expect(() => context(dir)).toThrow(UsageError);
    expect(() => context(dir)).toThrow(
      /--trace .*: cannot write a private \(0600\) trace file there: EISDIR/,
    );
  });
});
