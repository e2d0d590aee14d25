/**
 * `createRuntime({ env })` reaches the file reads of a run: a scripted model file and a delegate flow
 * file are capped by AGENT_RUNTIME_MAX_FILE_BYTES of the env given to the runtime, never by the
 * process's own environment (which here holds a cap every file exceeds).
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import { makeRuntime, script, tempDir, toolKit } from './helpers.js';

const FINISH = 'turns:\n  - calls:\n      - tool: builtin_node_finish\n        args: { summary: done }\n';

let saved: string | undefined;
beforeAll(() => {
  saved = process.env.AGENT_RUNTIME_MAX_FILE_BYTES;
  process.env.AGENT_RUNTIME_MAX_FILE_BYTES = '10';
});
afterAll(() => {
  if (saved === undefined) delete process.env.AGENT_RUNTIME_MAX_FILE_BYTES;
  else process.env.AGENT_RUNTIME_MAX_FILE_BYTES = saved;
});

const runtimes: Runtime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.close();
});

function runtimeWith(env: Record<string, string>): Runtime {
  const runtime = makeRuntime(toolKit(), { env });
  runtimes.push(runtime);
  return runtime;
}

describe('createRuntime({ env }) and the files a run reads', () => {
  it('caps a scripted model file by AGENT_RUNTIME_MAX_FILE_BYTES of the env given, not of process.env', async () => {
    const file = join(tempDir(), 'turns.yaml');
    writeFileSync(file, `${FINISH}${'# padding\n'.repeat(20)}`);
    const size = statSync(file).size;
    const flowObject = { id: 'capped', locale: 'en' as const, nodes: [{ id: 'work' }] };
    const run = await runtimeWith({}).start(flowObject, { input: { text: 'hi' }, model: `scripted:${file}` });
    expect(run.status).toBe('completed');
    await expect(
      runtimeWith({ AGENT_RUNTIME_MAX_FILE_BYTES: String(size - 1) }).start(flowObject, {
        input: { text: 'hi' },
        model: `scripted:${file}`,
      }),
    ).rejects.toMatchObject({
      code: 'REQUEST_INVALID',
      message: expect.stringContaining(`larger than ${size - 1} bytes`),
    });
  });

  it('caps a delegate flow file the same way', async () => {
    const child = join(tempDir(), 'child.yaml');
    writeFileSync(child, 'id: child\nlocale: en\nnodes:\n  - id: only\n    instructions: Do it.\n');
    const size = statSync(child).size;
    const parent = {
      id: 'parent',
      locale: 'en' as const,
      nodes: [{ id: 'work', instructions: 'Delegate.', delegates: [child] }],
    };
    const model = script({ calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] });
    expect((await runtimeWith({}).start(parent, { input: { text: 'hi' }, model })).status).toBe('completed');
    await expect(
      runtimeWith({ AGENT_RUNTIME_MAX_FILE_BYTES: String(size - 1) }).start(parent, {
        input: { text: 'hi' },
        model,
      }),
    ).rejects.toThrow('is larger than the input file limit');
  });
});
