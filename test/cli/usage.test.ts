import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_HELP, packageVersion } from '../../src/cli/usage.js';

/**
 * Per-command help (`agent-runtime COMMAND --help`), read in process and held to docs/cli.md: one help
 * per documented command, and each option the docs give a command named in that command's help.
 */

const ROOT = join(import.meta.dirname, '../..');
const DOC = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');

/** The first word of each row of the docs' command table. */
function documentedCommands(): string[] {
  const section = DOC.slice(DOC.indexOf('## Commands'), DOC.indexOf('### Options'));
  return [...new Set([...section.matchAll(/^\| `([a-z-]+)/gm)].map((m) => m[1] as string))];
}

/** The docs' option table: each row's options and the commands it names (`all but …` rows left out). */
function documentedOptions(): { options: string[]; commands: string[]; row: string }[] {
  const section = DOC.slice(DOC.indexOf('### Options'), DOC.indexOf('Options are strict'));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [, options = '', commands = ''] = line.split(/(?<!\\)\|/).map((cell) => cell.trim());
      return {
        row: options,
        options: [...options.matchAll(/`(--[a-z-]+)/g)].map((m) => m[1] as string),
        commands: commands.startsWith('all')
          ? []
          : [...commands.matchAll(/`([a-z-]+( [a-z]+)?)`/g)].map((m) => m[1] as string),
      };
    });
}

const DRIVING = ['run', 'approve', 'reject', 'answer', 'resume', 'retry', 'fork'];

describe('COMMAND_HELP', () => {
  it('has a help for exactly the commands docs/cli.md lists', () => {
    expect(Object.keys(COMMAND_HELP).sort()).toEqual(documentedCommands().sort());
  });

  it('each help starts with its own usage line', () => {
    for (const [command, help] of Object.entries(COMMAND_HELP))
      expect(help.split('\n')[0], command).toMatch(new RegExp(`^usage: agent-runtime ${command}\\b`));
  });

  it('the commands that drive a run name every option of driving', () => {
    for (const command of DRIVING)
      for (const option of ['--model', '--guards', '--tools', '--trace', '--durability', '--db', '--json'])
        expect(COMMAND_HELP[command], `${command} ${option}`).toContain(option);
  });

  it('only approve, reject and answer take --expect, and it says nothing changes otherwise', () => {
    const withExpect = Object.keys(COMMAND_HELP).filter((c) => COMMAND_HELP[c]?.includes('--expect'));
    expect(withExpect.sort()).toEqual(['answer', 'approve', 'reject']);
    expect(COMMAND_HELP.approve).toContain(
      '--expect ID         only if the run still waits for pending item ID (else exit 4, nothing changed)',
    );
  });

  it('each option docs/cli.md gives a command is named in that command’s help', () => {
    const missing: string[] = [];
    for (const { options, commands } of documentedOptions())
      for (const command of commands) {
        const help = COMMAND_HELP[command.split(' ')[0] as string];
        for (const option of options) if (!help?.includes(option)) missing.push(`${command} ${option}`);
      }
    expect(missing).toEqual([]);
  });

  it('the default store is the same in every help that names --db', () => {
    const dbLines = Object.values(COMMAND_HELP)
      .flatMap((help) => help.split('\n'))
      .filter((line) => /^\s+--db URL\s/.test(line) && line.includes('default'));
    expect(dbLines.length).toBeGreaterThan(5);
    for (const line of dbLines)
      expect(line).toContain('AGENT_RUNTIME_DB, else sqlite:.agent-runtime/runtime.db');
  });

  it('the exit codes a help names agree with docs/cli.md', () => {
    /** A help as one line: its text wraps where it likes. */
    const flat = (command: string) => (COMMAND_HELP[command] ?? '').replace(/\s+/g, ' ');
    expect(flat('run')).toContain('exits 2 and stores no run');
    expect(flat('run')).toContain('(exit 130)');
    expect(flat('retry')).toContain('(exit 4 when it has not failed)');
    expect(flat('status')).toContain("exit code as for the run's status: 0, 1 or 3");
    expect(flat('validate')).toContain('exit 0 when valid, else 2');
    expect(flat('say')).toContain(
      'Exit 4 when the run has ended or 20 messages already wait unread, 2 for an unknown run or a text empty or over 4000 characters',
    );
  });

  it('says exactly what `runs --status` filters by', () => {
    expect(COMMAND_HELP.runs).toContain('running, suspended, completed, failed or cancelled');
  });
});

describe('packageVersion', () => {
  it('is the version of the package.json of g2rain-agent-runtime', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
    };
    expect(manifest.name).toBe('g2rain-agent-runtime');
    expect(packageVersion()).toBe(manifest.version);
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
  });
});
