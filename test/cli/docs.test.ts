import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { USAGE } from '../../src/cli/args.js';
import { call, flow, makeRuntime, script, toolKit, turn } from '../runtime/helpers.js';

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Every `.ts` file under a folder of src/, recursively. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'));
}

/** docs/cli.md names every command, option and environment variable the code has (so it cannot drift). */
describe('docs/cli.md', () => {
  const doc = read('docs/cli.md');

  it('lists every command of the CLI', () => {
    const main = read('src/cli/main.ts');
    const table = /const COMMANDS[^{]*\{([^}]*)\}/.exec(main)?.[1] ?? '';
    const commands = [...table.matchAll(/^\s*'?([\w-]+)'?[,:]/gm)].map((m) => m[1] as string);
    expect(commands).toContain('run');
    for (const command of commands) expect(doc, command).toMatch(new RegExp(`\\| \`${command}[ \`]`));
    for (const line of USAGE.split('\n').filter((l) => /^ {2}[a-z]/.test(l))) {
      expect(commands).toContain(line.trim().split(' ')[0]);
    }
  });

  it('documents every option any command parses', () => {
    const options = new Set(
      sources('src/cli').flatMap((text) =>
        [...text.matchAll(/['"]?([a-z][\w-]*)['"]?: \{ type: '(?:string|boolean)'/g)].map(
          (m) => m[1] as string,
        ),
      ),
    );
    expect(options).toContain('input-json');
    expect([...options].filter((o) => !doc.includes(`--${o}`))).toEqual([]);
  });

  it('documents every AGENT_RUNTIME_* environment variable the code reads', () => {
    const names = new Set(
      sources('src').flatMap((text) => [...text.matchAll(/AGENT_RUNTIME_[A-Z_<>]+/g)].map((m) => m[0])),
    );
    const real = [...names].filter((n) => !n.endsWith('_') && !/^AGENT_RUNTIME_PROVIDER_(?!<NAME>)/.test(n));
    expect(real).toContain('AGENT_RUNTIME_LEASE_MS');
    expect(real.filter((n) => !doc.includes(n))).toEqual([]);
  });

  it('documents every field of the --json run summary', async () => {
    const section = doc.slice(
      doc.indexOf('### `--json`'),
      doc.indexOf('<!-- prettier-ignore -->', doc.indexOf('### `--json`')),
    );
    const documented = new Set([...section.matchAll(/`(\w+)`/g)].map((m) => m[1] as string));
    const runtime = makeRuntime(toolKit());
    try {
      const loaded = await flow({ nodes: [{ id: 'a' }] });
      const summaries = [
        await runtime.start(loaded, { input: { text: 'x' }, model: script(turn([call.ask('Q?')])) }),
        await runtime.start(loaded, { input: { text: 'x' }, model: script(turn([call.fail('no')])) }),
        await runtime.start(loaded, { input: { text: 'x' }, model: script(turn([call.finish()])) }),
      ];
      const keys = new Set(summaries.flatMap((s) => Object.keys(s)));
      expect([...keys].filter((k) => !documented.has(k))).toEqual([]);
    } finally {
      await runtime.close();
    }
  });

  it('has a row for each exit code 0–4', () => {
    for (const code of [0, 1, 2, 3, 4]) expect(doc).toMatch(new RegExp(`^\\| ${code} +\\|`, 'm'));
  });
});
