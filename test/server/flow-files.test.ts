import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/log/logger.js';
import { scanFlowFiles } from '../../src/server/flow-files.js';
import { watchFlows, type FlowWatch } from '../../src/server/flow-watch.js';
import { FlowRegistry } from '../../src/server/flows.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
import { tempDir } from './helpers.js';

/** `serve --flows DIR`: flow files found by content, recursively; `--watch` reloads changed ones. */

const flow = (id: string, extra = ''): string =>
  `id: ${id}\nversion: 1\nlocale: en\n${extra}nodes:\n  - { id: n, tools: [] }\n`;

/** Waits (polling, up to a deadline) until `check` holds. */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('flow files of a --flows folder', () => {
  it('are recognised by content, in any sub-folder, outside node_modules and hidden folders', async () => {
    const dir = await tempDir({
      'package.json': '{ "name": "x", "version": "1.0.0" }',
      'package-lock.json': '{ "lockfileVersion": 3 }',
      'turns.yaml': 'turns: []\n',
      'a.yaml': flow('a'),
      'team/deep/down/flow.yml': flow('deep'),
      'as-json.json': JSON.stringify({ id: 'j', nodes: [{ id: 'n' }] }),
      'broken.yaml': flow('broken', 'colour: blue\n'),
      'node_modules/pkg/flow.yaml': flow('hidden-dep'),
      '.agent-runtime/flow.yaml': flow('hidden'),
    });
    const scan = await scanFlowFiles(dir);
    expect(scan.flows.map((f) => f.slice(dir.length + 1))).toEqual([
      'a.yaml',
      'as-json.json',
      'broken.yaml',
      'team/deep/down/flow.yml',
    ]);
    expect(scan.skipped).toEqual(['package-lock.json', 'package.json', 'turns.yaml']);

    const logger = new MemoryLogger();
    const registry = new FlowRegistry({ dir, logger });
    const registered = await registry.loadDir();
    expect(registered.map((f) => f.flowId)).toEqual(['a', 'j', 'deep']);
    expect(logger.lines().filter((l) => l.includes('not flows'))).toEqual([
      'INFO FLOWS skipped files that are not flows count=3 files="package-lock.json, package.json, turns.yaml"',
    ]);
    expect(logger.find('FLOWS skipped a flow file with problems').map((r) => r.fields.file)).toEqual([
      join(dir, 'broken.yaml'),
    ]);
    await rm(dir, { recursive: true, force: true });
  });

  it("include every flow of the examples folder (the README's `--flows examples`)", async () => {
    const registry = new FlowRegistry({ dir: join(REPO_ROOT, 'examples'), logger: new MemoryLogger() });
    const ids = (await registry.loadDir()).map((f) => f.flowId);
    expect(ids).toEqual(
      expect.arrayContaining(['site-builder', 'site-report', 'delegating', 'acceptance-site']),
    );
  });

  it('keep the version as written: a number stays a number', async () => {
    const dir = await tempDir({
      'n.yaml': flow('n'),
      's.yaml': flow('s').replace('version: 1', "version: '2024-05'"),
    });
    const registry = new FlowRegistry({ dir });
    await registry.loadDir();
    expect(registry.list().map((f) => [f.flowId, f.version])).toEqual([
      ['n', 1],
      ['s', '2024-05'],
    ]);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('serve --watch', () => {
  let watching: FlowWatch | null = null;
  afterEach(() => watching?.close());

  it('reloads a changed flow file; a broken change keeps the registered flow', async () => {
    const dir = await tempDir({ 'a.yaml': flow('a', 'description: one\n') });
    const logger = new MemoryLogger();
    const registry = new FlowRegistry({ dir, logger });
    await registry.loadDir();
    watching = watchFlows(registry, dir, logger);

    await writeFile(join(dir, 'a.yaml'), flow('a', 'description: two\n').replace('version: 1', 'version: 2'));
    await until(() => registry.get('a')?.flow.version === 2, 'the reload');
    expect(registry.get('a')?.flow.description).toBe('two');
    expect(logger.find('FLOWS reloaded a changed flow file')[0]?.fields).toMatchObject({
      flowId: 'a',
      version: 2,
    });

    await writeFile(join(dir, 'a.yaml'), flow('a', 'colour: blue\n'));
    await until(() => logger.find(/^FLOWS kept the registered flow/).length > 0, 'the warning');
    expect(registry.get('a')?.flow.description).toBe('two');

    await writeFile(
      join(dir, 'a.yaml'),
      flow('a', 'description: three\n').replace('version: 1', 'version: 2'),
    );
    await until(() => registry.get('a')?.flow.description === 'three', 'the second reload');
    expect(logger.find(/its version did not/)).toHaveLength(1);

    await writeFile(join(dir, 'sub-new.yaml'), flow('b'));
    await until(() => registry.get('b') !== undefined, 'a new flow file');
    await rm(dir, { recursive: true, force: true });
  });
});
