import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliInvocation } from '../../src/cli/context.js';

/** The start of printed follow-up commands: plain when agent-runtime is on the user's PATH, else npx. */
describe('cliInvocation', () => {
  const root = mkdtempSync(join(tmpdir(), 'invocation-'));
  const global = join(root, 'global-bin');
  const local = join(root, 'project', 'node_modules', '.bin');
  for (const dir of [global, local]) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'agent-runtime'), '#!/bin/sh\n', { mode: 0o755 });
  }
  const empty = join(root, 'empty');
  mkdirSync(empty);

  it.skipIf(process.platform === 'win32')('prints agent-runtime for a global install on PATH', () => {
    expect(cliInvocation({ PATH: [empty, global].join(delimiter) })).toBe('agent-runtime');
  });

  it('prints npx agent-runtime when only node_modules/.bin (added by npx or npm) has it, or nothing does', () => {
    expect(cliInvocation({ PATH: [local, empty].join(delimiter) })).toBe('npx agent-runtime');
    expect(cliInvocation({ PATH: `${local}/` })).toBe('npx agent-runtime');
    expect(cliInvocation({ PATH: empty })).toBe('npx agent-runtime');
    expect(cliInvocation({})).toBe('npx agent-runtime');
  });
});
