import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FlowError } from '../../src/flow/problems.js';
import { MemoryLogger } from '../../src/log/logger.js';
import { ApiError } from '../../src/server/errors.js';
import { candidatePath, isFlowFile, scanFlowFiles, searchedFolder } from '../../src/server/flow-files.js';
import { FlowRegistry } from '../../src/server/flows.js';
import { tempDir } from './helpers.js';

/**
 * The flows registry (src/server/flows.ts, flow-files.ts): the bounds of a `--flows` scan (depth, size,
 * extensions, unparseable files), the log of what was skipped, duplicate ids, and uploads per tenant
 * (shadowing, limits counted only over uploads, a refusal that changes nothing, delegates confined to
 * the folder). flow-files.test.ts covers recognising files by content; flow-limits.test.ts the limits
 * over HTTP.
 */

const flow = (id: string, extra = ''): string =>
  `id: ${id}\nversion: 1\nlocale: en\n${extra}nodes:\n  - { id: n, tools: [] }\n`;

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

describe('scanning a --flows folder', () => {
  it('searches 8 levels of sub-folders and no deeper', async () => {
    const eight = 'a/b/c/d/e/f/g/h';
    const dir = await tempDir({
      [`${eight}/deep8.yaml`]: flow('deep8'),
      [`${eight}/i/deep9.yaml`]: flow('deep9'),
    });
    const scan = await scanFlowFiles(dir);
    expect(scan.flows).toEqual([join(dir, eight, 'deep8.yaml')]);
    expect(scan.skipped).toEqual([]);
  });

  it('takes .yaml, .yml and .json in any case, and ignores other names entirely', async () => {
    const dir = await tempDir({
      'A.YAML': flow('upper'),
      'b.Yml': flow('mixed'),
      'c.JSON': JSON.stringify({ id: 'json-upper', nodes: [{ id: 'n' }] }),
      'd.yaml.txt': flow('txt'),
      'e.md': flow('md'),
      README: flow('none'),
    });
    const scan = await scanFlowFiles(dir);
    expect(scan.flows.map((f) => f.slice(dir.length + 1))).toEqual(['A.YAML', 'b.Yml', 'c.JSON']);
    expect(scan.skipped).toEqual([]);
  });

  it('does not read a file over 1 MiB as a flow, however flow-like', async () => {
    const dir = await tempDir({
      'big.yaml': `${flow('big')}# ${'x'.repeat(1024 * 1024)}\n`,
      'small.yaml': flow('small'),
    });
    expect(await isFlowFile(join(dir, 'big.yaml'))).toBe(false);
    const scan = await scanFlowFiles(dir);
    expect(scan.flows).toEqual([join(dir, 'small.yaml')]);
    expect(scan.skipped).toEqual(['big.yaml']);
  });

  it('counts a YAML file that does not parse as a flow only with top-level id: and nodes: lines', async () => {
    const dir = await tempDir({
      'broken-flow.yaml': 'id: broken\nnodes: [ { id: n\n',
      'broken-other.yaml': 'name: x\nitems: [ { a: 1\n',
      'broken.json': '{"id": "j", "nodes": [',
    });
    expect(await isFlowFile(join(dir, 'broken-flow.yaml'))).toBe(true);
    expect(await isFlowFile(join(dir, 'broken-other.yaml'))).toBe(false);
    // A JSON file has no such second chance.
    expect(await isFlowFile(join(dir, 'broken.json'))).toBe(false);
    const logger = new MemoryLogger();
    const registry = new FlowRegistry({ dir, logger });
    expect(await registry.loadDir()).toEqual([]);
    expect(logger.find('FLOWS skipped a flow file with problems').map((r) => r.fields.file)).toEqual([
      join(dir, 'broken-flow.yaml'),
    ]);
    expect(logger.find('FLOWS skipped files that are not flows')[0]?.fields).toEqual({
      count: 2,
      files: 'broken-other.yaml, broken.json',
    });
  });

  it('names the first ten files that are not flows in the log line, then how many more', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 13; i += 1) files[`data-${String(i).padStart(2, '0')}.json`] = '{"rows": []}';
    const logger = new MemoryLogger();
    await new FlowRegistry({ dir: await tempDir(files), logger }).loadDir();
    const shown = Array.from({ length: 10 }, (_, i) => `data-${String(i).padStart(2, '0')}.json`).join(', ');
    expect(logger.find('FLOWS skipped files that are not flows')[0]?.fields).toEqual({
      count: 13,
      files: `${shown} and 3 more`,
    });
  });

  it('decides which paths and folders are searched', () => {
    expect(['x.yaml', 'team/x.yml', 'a/b/c.JSON'].map(candidatePath)).toEqual([true, true, true]);
    expect(
      ['x.txt', 'node_modules/x.yaml', 'a/.git/x.yaml', '.hidden/x.json', 'a\\node_modules\\x.yaml'].map(
        candidatePath,
      ),
    ).toEqual([false, false, false, false, false]);
    expect(['flows', 'node_modules', '.git', '.agent-runtime', 'a.b'].map(searchedFolder)).toEqual([
      true,
      false,
      false,
      false,
      true,
    ]);
  });

  it('registers the later of two files with one id, logging the replacement', async () => {
    const dir = await tempDir({
      'a-first.yaml': flow('same', 'description: first\n'),
      'b-second.yaml': flow('same', 'description: second\n').replace('version: 1', 'version: 2'),
    });
    const logger = new MemoryLogger();
    const registry = new FlowRegistry({ dir, logger });
    expect((await registry.loadDir()).map((f) => [f.flowId, f.version])).toEqual([
      ['same', 1],
      ['same', 2],
    ]);
    expect(registry.list()).toEqual([
      expect.objectContaining({ flowId: 'same', version: 2, description: 'second', origin: 'dir' }),
    ]);
    expect(registry.list()[0]?.path).toBe(join(dir, 'b-second.yaml'));
    expect(logger.find('FLOWS replaced')[0]?.fields).toEqual({ flowId: 'same', version: 2, previous: 1 });
  });

  it('registers nothing without a folder', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'flows-cwd-'));
    const registry = new FlowRegistry({ cwd });
    expect(registry.hasDir).toBe(false);
    expect(registry.baseDir).toBe(cwd);
    expect(await registry.loadDir()).toEqual([]);
    expect(registry.list()).toEqual([]);
  });
});

describe('uploads per tenant', () => {
  it('shadows a shared flow for its tenant only, and lists what each tenant sees, by id', async () => {
    const registry = new FlowRegistry({ clock: () => Date.parse('2026-05-01T12:00:00Z') });
    await registry.registerText(flow('zeta'));
    await registry.registerText(flow('alpha', 'description: shared alpha\n'));
    const own = await registry.registerText(
      flow('alpha').replace('version: 1', "version: '2026-05'"),
      'x',
      'acme',
    );
    expect(own).toEqual({
      flowId: 'alpha',
      version: '2026-05',
      origin: 'upload',
      tenant: 'acme',
      registeredAt: '2026-05-01T12:00:00.000Z',
    });
    expect(registry.list('acme').map((f) => [f.flowId, f.version, f.tenant])).toEqual([
      ['alpha', '2026-05', 'acme'],
      ['zeta', 1, undefined],
    ]);
    expect(registry.list('globex').map((f) => [f.flowId, f.version, f.description])).toEqual([
      ['alpha', 1, 'shared alpha'],
      ['zeta', 1, undefined],
    ]);
    expect(registry.list(null).map((f) => f.tenant)).toEqual([undefined, undefined]);
    expect(registry.get('alpha', 'acme')?.flow.version).toBe('2026-05');
    expect(registry.get('alpha', 'globex')?.flow.version).toBe(1);
    expect(registry.get('alpha')?.flow.version).toBe(1);
    expect(registry.entry('nope', 'acme')).toBeUndefined();
    // A tenant-only flow is no one else's.
    await registry.registerText(flow('mine'), 'x', 'acme');
    expect(registry.get('mine', 'globex')).toBeUndefined();
    expect(registry.get('mine')).toBeUndefined();
  });

  it('refuses text larger than the whole allowance before parsing it: FLOW_LIMIT, not FLOW_INVALID', async () => {
    const registry = new FlowRegistry({ limits: { maxBytes: 10 } });
    for (const [tenant, who] of [
      [null, 'the shared flows'],
      ['acme', 'tenant acme'],
    ] as const) {
      const error = await refusal(registry.registerText('not: [a, flow', 'x', tenant));
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).body()).toEqual({
        error: {
          code: 'FLOW_LIMIT',
          message: `${who} would hold more than 10 bytes of uploaded flows (serve --max-flow-bytes); replace a flow of the same id, or ask the server's operator for a higher limit`,
        },
      });
      expect((error as ApiError).status).toBe(409);
    }
  });

  it('counts the replacing text instead of the replaced, and a refused upload keeps what was there', async () => {
    const a = flow('a');
    const bigger = flow('a', `description: ${'d'.repeat(a.length / 2)}\n`);
    const registry = new FlowRegistry({ limits: { maxBytes: 2 * a.length } });
    await registry.registerText(a);
    await registry.registerText(bigger);
    expect(registry.get('a')?.flow.description).toMatch(/^d+$/);
    const error = await refusal(
      registry.registerText(flow('b', `description: ${'e'.repeat(a.length / 2)}\n`)),
    );
    expect((error as ApiError).code).toBe('FLOW_LIMIT');
    expect(registry.get('b')).toBeUndefined();
    // Replacing `a` with the small text again makes room.
    await registry.registerText(a);
    await registry.registerText(flow('b'));
    expect(registry.list().map((f) => f.flowId)).toEqual(['a', 'b']);
  });

  it('counts uploads only: flows of the folder take no place, and each tenant has its own count', async () => {
    const dir = await tempDir({ 'one.yaml': flow('one'), 'two.yaml': flow('two') });
    const registry = new FlowRegistry({ dir, limits: { maxFlows: 1 } });
    await registry.loadDir();
    await registry.registerText(flow('shared-up'));
    await registry.registerText(flow('acme-up'), 'x', 'acme');
    await registry.registerText(flow('globex-up'), 'x', 'globex');
    const error = await refusal(registry.registerText(flow('acme-second'), 'x', 'acme'));
    expect((error as ApiError).body().error.message).toBe(
      "tenant acme already holds 1 uploaded flows (serve --max-flows); replace a flow of the same id, or ask the server's operator for a higher limit",
    );
    // An upload of a folder flow's id is one more upload (it shadows the folder's flow).
    expect(((await refusal(registry.registerText(flow('one')))) as ApiError).code).toBe('FLOW_LIMIT');
    await registry.registerText(flow('acme-up', 'description: again\n'), 'x', 'acme');
    expect(registry.get('acme-up', 'acme')?.flow.description).toBe('again');
  });

  it('registers nothing when `vet` refuses, and the refusal takes no place', async () => {
    const registry = new FlowRegistry({ limits: { maxFlows: 1 } });
    const vetoed = await refusal(
      registry.registerText(flow('vetoed'), 'x', null, () => {
        throw new ApiError(400, 'FLOW_INVALID', 'no');
      }),
    );
    expect((vetoed as ApiError).message).toBe('no');
    expect(registry.get('vetoed')).toBeUndefined();
    await registry.registerText(flow('accepted'));
    expect(registry.list().map((f) => f.flowId)).toEqual(['accepted']);
  });

  it('refuses an invalid upload with every problem named after the upload', async () => {
    const registry = new FlowRegistry();
    const error = await refusal(registry.registerText('id: bad\ncolour: blue\n', 'my-upload'));
    expect(error).toBeInstanceOf(FlowError);
    const problems = (error as FlowError).message.split('\n');
    expect(problems.length).toBeGreaterThanOrEqual(2);
    expect(problems.every((p) => p.startsWith('my-upload'))).toBe(true);
    expect((error as FlowError).message).toMatch(/colour/);
    expect((error as FlowError).message).toMatch(/nodes/);
    expect(registry.list()).toEqual([]);
  });
});

describe('delegates of uploaded flows', () => {
  const delegating = (target: string) =>
    `id: hub\nlocale: en\nnodes:\n  - id: main\n    delegates: [${JSON.stringify(target)}]\n`;

  it('are refused without a flows folder', async () => {
    const error = await refusal(new FlowRegistry().registerText(delegating('child.yaml')));
    expect(error).toBeInstanceOf(FlowError);
    expect((error as FlowError).message).toContain(
      "flows sent over HTTP may delegate only to flow files of the server's --flows DIR, and this server has none",
    );
  });

  it('must lie in the folder, visible and outside node_modules', async () => {
    const outside = await tempDir({ 'child.yaml': flow('child') });
    const dir = await tempDir({
      'child.yaml': flow('child'),
      '.hidden/child.yaml': flow('hidden-child'),
      'node_modules/pkg/child.yaml': flow('pkg-child'),
    });
    const registry = new FlowRegistry({ dir });
    expect((await registry.registerText(delegating('child.yaml'))).flowId).toBe('hub');
    for (const target of [
      join(outside, 'child.yaml'),
      '../child.yaml',
      '.hidden/child.yaml',
      'node_modules/pkg/child.yaml',
    ]) {
      const error = await refusal(registry.registerText(delegating(target), 'x', 'acme'));
      expect(error, target).toBeInstanceOf(FlowError);
      expect((error as FlowError).message, target).toContain(
        `delegate flow ${JSON.stringify(target)} is not a flow file of the server's flows folder`,
      );
    }
    expect(registry.list('acme').filter((f) => f.tenant === 'acme')).toEqual([]);
  });
});
