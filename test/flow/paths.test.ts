import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FlowSchema } from '../../src/domain/flow.js';
import type { LoadedFlow } from '../../src/flow/load.js';
import { flowModel, resolveFlowPath, SCRIPTED_PREFIX } from '../../src/flow/paths.js';

/**
 * Paths written in a flow (delegates, `scripted:` files, a stdio server's `cwd`) resolve against the
 * flow's folder, or the current directory for a flow without one (docs/flows.md, "model").
 */

const dir = resolve('/srv/flows/team');

function loaded(model: string | undefined, at: string | null = dir): LoadedFlow {
  const flow = FlowSchema.parse({ id: 'f', nodes: [{ id: 'a' }], ...(model === undefined ? {} : { model }) });
  return { flow, dir: at, path: at === null ? null : join(at, 'flow.yaml') };
}

describe('resolveFlowPath', () => {
  it("resolves a relative path against the flow's folder", () => {
    expect(resolveFlowPath(loaded(undefined), 'child.yaml')).toBe(join(dir, 'child.yaml'));
    expect(resolveFlowPath(loaded(undefined), './sub/child.yaml')).toBe(join(dir, 'sub', 'child.yaml'));
    expect(resolveFlowPath(loaded(undefined), '../shared/x.yaml')).toBe(resolve('/srv/flows/shared/x.yaml'));
    expect(resolveFlowPath(loaded(undefined), '.')).toBe(dir);
  });

  it('keeps an absolute path as it is', () => {
    const absolute = resolve('/opt/other/flow.yaml');
    expect(resolveFlowPath(loaded(undefined), absolute)).toBe(absolute);
  });

  it('resolves against the current directory for a flow without a folder', () => {
    expect(resolveFlowPath(loaded(undefined, null), 'child.yaml')).toBe(resolve(process.cwd(), 'child.yaml'));
  });
});

describe('flowModel', () => {
  it('is undefined for a flow without a model', () => {
    expect(flowModel(loaded(undefined))).toBeUndefined();
  });

  it('gives other models as written', () => {
    expect(flowModel(loaded('openai:gpt-4.1'))).toBe('openai:gpt-4.1');
    expect(flowModel(loaded('qwen:./not-a-path'))).toBe('qwen:./not-a-path');
  });

  it("makes a relative scripted: file absolute against the flow's folder", () => {
    expect(SCRIPTED_PREFIX).toBe('scripted:');
    expect(flowModel(loaded('scripted:./turns.yaml'))).toBe(`scripted:${join(dir, 'turns.yaml')}`);
    expect(flowModel(loaded('scripted:turns/a.yaml'))).toBe(`scripted:${join(dir, 'turns', 'a.yaml')}`);
    expect(flowModel(loaded('scripted:../turns.yaml'))).toBe(`scripted:${resolve('/srv/flows/turns.yaml')}`);
  });

  it('keeps an absolute scripted: file', () => {
    const file = resolve('/tmp/turns.yaml');
    expect(flowModel(loaded(`scripted:${file}`))).toBe(`scripted:${file}`);
  });

  it('resolves a scripted: file of a flow without a folder against the current directory', () => {
    expect(flowModel(loaded('scripted:turns.yaml', null))).toBe(
      `scripted:${resolve(process.cwd(), 'turns.yaml')}`,
    );
  });

  it('only the exact prefix counts: Scripted: is another provider', () => {
    expect(flowModel(loaded('Scripted:./turns.yaml'))).toBe('Scripted:./turns.yaml');
  });
});
