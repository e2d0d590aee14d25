import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExtensions, runtimeExtensions, toolNames } from '../../src/cli/extensions.js';
import type { Parsed } from '../../src/cli/args.js';
import { defineBuiltin } from '../../src/tools/builtin/user.js';
import { defineTool } from '../../src/tools/tool.js';
import { defineGuard } from '../../src/tools/user-guards/define.js';

// The modules below take their guard and tool from here, so that they need no built package.
const shared = globalThis as { __extGuard?: unknown; __extTool?: unknown; __extBuiltin?: unknown };
shared.__extGuard = defineGuard({ name: 'no-refunds', codes: {}, before: () => undefined });
shared.__extTool = defineTool({
  name: 'lookup',
  description: 'Looks up',
  inputSchema: { type: 'object' },
  execute: () => ({}),
});

shared.__extBuiltin = defineBuiltin({
  name: 'note_add',
  description: { 'zh-CN': '记一条备注', en: 'Adds a note' },
  execute: (call) => call.ok('noted'),
});

(globalThis as { __extCoded?: unknown }).__extCoded = (name: string) =>
  defineBuiltin({
    name,
    description: { 'zh-CN': '备注', en: 'A note' },
    codes: { NOTE_BAD: { number: 61501, outcome: 'REJECTED' } },
    execute: (call) => call.ok('ok'),
  });
(globalThis as { __extCodedGuard?: unknown }).__extCodedGuard = defineGuard({
  name: 'bad-notes',
  codes: { NOTE_BAD: { number: 61502, outcome: 'REJECTED' } },
  before: () => undefined,
});

const dir = mkdtempSync(join(tmpdir(), 'extensions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function module(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, body);
  return file;
}

const parsed = (values: { guards?: string[]; tools?: string[] }): Parsed => ({
  values: values as Parsed['values'],
  positionals: [],
});

describe('--guards and --tools modules', () => {
  const mixed = module(
    'mixed.mjs',
    'export const guard = globalThis.__extGuard;\nexport const tool = globalThis.__extTool;\n',
  );
  const mixedList = module(
    'mixed-list.mjs',
    'export default [globalThis.__extTool, globalThis.__extGuard];\n',
  );

  it('refuses a guard in a module given only to --tools, and a tool in one given only to --guards', async () => {
    await expect(loadExtensions(parsed({ tools: [mixed] }))).rejects.toThrow(
      `--tools ${mixed}: export guard is a guard or holds one; pass the module with --guards ${mixed} too`,
    );
    await expect(loadExtensions(parsed({ guards: [mixedList] }))).rejects.toThrow(
      `--guards ${mixedList}: the default export is a tool or holds one; pass the module with --tools ${mixedList} too`,
    );
  });

  it('takes each kind under its own flag when a module holding both is given to both', async () => {
    for (const file of [mixed, mixedList]) {
      const loaded = await loadExtensions(parsed({ guards: [file], tools: [file] }));
      expect(loaded.guards.map((g) => g.name)).toEqual(['no-refunds']);
      expect(loaded.tools.map((t) => t.descriptor.name)).toEqual(['lookup']);
    }
  });

  it('takes builtins (defineBuiltin) from a --tools module, beside its local tools, and counts their names as known', async () => {
    const both = module(
      'both.mjs',
      'export const tool = globalThis.__extTool;\nexport default [globalThis.__extBuiltin];\n',
    );
    const loaded = await loadExtensions(parsed({ tools: [both] }));
    expect(loaded.tools.map((t) => t.descriptor.name)).toEqual(['lookup']);
    expect(loaded.builtins.map((b) => b.name)).toEqual(['note_add']);
    expect(toolNames(loaded)).toEqual(['lookup', 'note_add']);
    expect(runtimeExtensions(loaded)).toEqual({ tools: loaded.tools, guards: [], builtins: loaded.builtins });
  });

  it('refuses a builtin and a tool of one name, and a builtin given to --guards', async () => {
    const twice = module(
      'twice.mjs',
      'export const a = globalThis.__extBuiltin;\nexport const b = { ...globalThis.__extTool, descriptor: { ...globalThis.__extTool.descriptor, name: "note_add" } };\n',
    );
    await expect(loadExtensions(parsed({ tools: [twice] }))).rejects.toThrow(
      '--tools: two tools are named "note_add"',
    );
    const only = module('only-builtin.mjs', 'export default globalThis.__extBuiltin;\n');
    await expect(loadExtensions(parsed({ guards: [only] }))).rejects.toThrow(
      `--guards ${only}: the default export is a tool or holds one; pass the module with --tools ${only} too`,
    );
    const fake = module('fake.mjs', 'export const note = { name: "note_add", execute() {} };\n');
    await expect(loadExtensions(parsed({ tools: [fake] }))).rejects.toThrow(
      `--tools ${fake}: export note is not a tool made with defineTool or defineBuiltin`,
    );
  });

  it('checks the builtins as createRuntime does, as usage errors: a shared code, another copy', async () => {
    const twoCodes = module(
      'two-codes.mjs',
      [
        'export const a = globalThis.__extCoded("note_a");',
        'export const b = globalThis.__extCoded("note_b");',
      ].join('\n'),
    );
    await expect(loadExtensions(parsed({ tools: [twoCodes] }))).rejects.toThrow(
      '--tools: builtin note_b: code NOTE_BAD (61501) is also declared by builtin note_a',
    );
    const copy = module('copy.mjs', 'export default { ...globalThis.__extBuiltin };\n');
    await expect(loadExtensions(parsed({ tools: [copy] }))).rejects.toThrow(
      '--tools: builtin note_add was made by another copy of g2rain-agent-runtime',
    );
    const guarded = module('guard-code.mjs', 'export default globalThis.__extCodedGuard;\n');
    const coded = module('coded.mjs', 'export default globalThis.__extCoded("note_c");\n');
    await expect(loadExtensions(parsed({ guards: [guarded], tools: [coded] }))).rejects.toThrow(
      '--tools: builtin note_c: code NOTE_BAD (61501) is also declared by guard bad-notes',
    );
  });
});
