import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentRuntimeError } from '../../src/domain/agent-runtime-error.js';
import { nodeKindOf, NODE_KINDS } from '../../src/domain/node-kinds.js';
import { CodeRegistry } from '../../src/engine/code-registry.js';
import { FlowRegistry } from '../../src/server/flows.js';
import { defineTool, ToolDefinitionError } from '../../src/tools/tool.js';
import { defineGuard, GuardDefinitionError } from '../../src/tools/user-guards/define.js';
import { loadFlow } from '../../src/flow/load.js';

// The setup errors of definitions carry codes, and the seams a runtime injects (cwd, clock) are the ones used.

describe('definition errors are AgentRuntimeErrors with a code', () => {
  it('defineGuard: GuardDefinitionError GUARD_DEFINITION_INVALID', () => {
    const error = catchError(() => defineGuard({ name: 'no steps', codes: {} }));
    expect(error).toBeInstanceOf(GuardDefinitionError);
    expect(AgentRuntimeError.isInstance(error)).toBe(true);
    expect((error as GuardDefinitionError).code).toBe('GUARD_DEFINITION_INVALID');
  });

  it('defineTool: ToolDefinitionError TOOL_DEFINITION_INVALID naming the tool', () => {
    const error = catchError(() =>
      defineTool({
        name: 'broken',
        description: 'd',
        inputSchema: { type: 'object' },
      } as unknown as Parameters<typeof defineTool>[0]),
    );
    expect(error).toBeInstanceOf(ToolDefinitionError);
    expect(AgentRuntimeError.isInstance(error)).toBe(true);
    expect((error as ToolDefinitionError).code).toBe('TOOL_DEFINITION_INVALID');
    expect((error as Error).message).toContain('broken');
  });
});

describe('the seams a runtime injects', () => {
  it('CodeRegistry imports the module of a flow without a folder from the cwd it was given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'code-cwd-'));
    writeFileSync(join(dir, 'steps.mjs'), 'export const double = ({ input }) => ({ twice: input.n * 2 });\n');
    const loaded = await loadFlow(
      { id: 'code-cwd', nodes: [{ id: 'step', module: './steps.mjs#double' }] },
      { baseDir: dir },
    );
    const node = loaded.flow.nodes[0]!;
    // The run's flow reference has no folder of its own: the registry's cwd is where the module is.
    const step = await new CodeRegistry(dir).resolve({ flow: loaded.flow, dir: null }, node);
    expect(typeof step).toBe('function');
    const elsewhere = await new CodeRegistry(tmpdir()).resolve({ flow: loaded.flow, dir: null }, node);
    expect(typeof elsewhere).toBe('string');
  });

  it('FlowRegistry stamps registeredAt with the clock it was given', async () => {
    const registry = new FlowRegistry({ clock: () => Date.UTC(2030, 0, 2, 3, 4, 5) });
    const info = await registry.registerText('id: stamped\nnodes:\n  - id: only\n');
    expect(info.registeredAt).toBe('2030-01-02T03:04:05.000Z');
  });
});

describe('node kinds', () => {
  it('a node with run or module is a code node, any other a model node; the model node is the last kind', () => {
    expect(nodeKindOf({ id: 'a', module: './x.mjs#f' }).name).toBe('code');
    expect(nodeKindOf({ id: 'a', run: 'inline' }).name).toBe('code');
    expect(nodeKindOf({ id: 'a', instructions: 'hi' }).name).toBe('model');
    expect(NODE_KINDS.at(-1)?.name).toBe('model');
  });
});

function catchError(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
