/**
 * The delegate service and its helpers (src/engine/delegation.ts) on their own: which flows a node
 * may delegate to, what a child run is started with, the child an earlier attempt started, and how a
 * child's summary reads to builtin_node_delegate.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { RunError, runConflict } from '../../src/domain/run-error.js';
import {
  delegateResult,
  delegateService,
  existingChild,
  type ExistingChild,
  type StartChild,
} from '../../src/engine/delegation.js';
import { newRun } from '../../src/engine/new-run.js';
import type { FlowRef } from '../../src/engine/toolbox.js';
import { summarize, type RunSummary } from '../../src/records/summary.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { RunPatch, RunRecord } from '../../src/store/store.js';
import type { CallInput } from '../../src/tools/call.js';
import { tempDir } from '../runtime/helpers.js';

afterEach(() => {
  vi.useRealTimers();
});

const summary = (over: Partial<RunSummary> & Pick<RunSummary, 'status'>): RunSummary => ({
  runId: 'run_child',
  outputs: {},
  reply: null,
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  flowId: 'child',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

describe('delegateResult', () => {
  it('gives a completed child its outputs', () => {
    expect(delegateResult(summary({ status: 'completed', outputs: { order: { id: 'o1' } } }))).toEqual({
      status: 'completed',
      childRunId: 'run_child',
      outputs: { order: { id: 'o1' } },
    });
  });

  it('gives a suspended child its suspension', () => {
    const suspension = {
      kind: 'FOLLOW_UP',
      pending: { id: 'pnd_0123456789abcdef', question: 'which size?' },
    } as unknown as RunSummary['suspension'];
    expect(delegateResult(summary({ status: 'suspended', suspension }))).toEqual({
      status: 'suspended',
      childRunId: 'run_child',
      suspension,
    });
  });

  it('reads every other child as failed, with its reason and message or the status itself', () => {
    expect(
      delegateResult(summary({ status: 'failed', reason: 'NO_PROGRESS', message: 'five stalls' })),
    ).toEqual({ status: 'failed', childRunId: 'run_child', reason: 'NO_PROGRESS', message: 'five stalls' });
    expect(delegateResult(summary({ status: 'cancelled' }))).toEqual({
      status: 'failed',
      childRunId: 'run_child',
      reason: 'CANCELLED',
      message: 'the child run is cancelled',
    });
    // a suspended summary without its suspension, and a run still running (its driver was fenced off)
    expect(delegateResult(summary({ status: 'suspended' }))).toMatchObject({
      status: 'failed',
      reason: 'SUSPENDED',
      message: 'the child run is suspended',
    });
    expect(delegateResult(summary({ status: 'running' }))).toMatchObject({
      status: 'failed',
      reason: 'RUNNING',
      message: 'the child run is running',
    });
  });
});

/** Child runs of a parent in a memory store. */
async function childRun(
  store: MemoryStore,
  runId: string,
  options: { parentCallId: string; parentRunId?: string; patch?: RunPatch },
): Promise<RunRecord> {
  const flow = (await loadFlow({ id: 'child', locale: 'en', nodes: [{ id: 'order' }] }, { knownTools: [] }))
    .flow;
  const { run, events } = newRun(runId, {
    flow,
    flowDir: null,
    input: { text: 'order tea' },
    model: null,
    parentRunId: options.parentRunId ?? 'run_parent',
    rootRunId: 'run_parent',
    parentCallId: options.parentCallId,
    tenant: null,
    lease: { owner: 'dead', expiresAt: 0 },
  });
  const created = await store.createRun(run, events);
  if (!options.patch) return created;
  return store.commit({ runId, expectedVersion: created.version, patch: options.patch });
}

describe('existingChild', () => {
  it('is null when no child of the parent was started by that call', async () => {
    const store = new MemoryStore();
    await childRun(store, 'run_a', { parentCallId: 'c1' });
    await childRun(store, 'run_b', { parentCallId: 'c2', parentRunId: 'run_other' });
    const resume = vi.fn<(runId: string) => Promise<RunSummary>>();
    expect(await existingChild(store, 'run_parent', 'c2', { resume, waitMs: 10 })).toBeNull();
    expect(await existingChild(store, 'run_nobody', 'c1', { resume, waitMs: 10 })).toBeNull();
    expect(resume).not.toHaveBeenCalled();
  });

  it('answers the summary of a child that is not running, without resuming it', async () => {
    const store = new MemoryStore();
    await childRun(store, 'run_a', { parentCallId: 'c0' });
    const ended = await childRun(store, 'run_b', {
      parentCallId: 'c1',
      patch: { status: 'completed', outputs: { order: { id: 'o1' } } },
    });
    const resume = vi.fn<(runId: string) => Promise<RunSummary>>();
    expect(await existingChild(store, 'run_parent', 'c1', { resume, waitMs: 10 })).toEqual(summarize(ended));
    expect(resume).not.toHaveBeenCalled();
  });

  it('resumes a running child (its driver died with the parent)', async () => {
    const store = new MemoryStore();
    await childRun(store, 'run_a', { parentCallId: 'c1' });
    const resumed = summary({ status: 'completed', runId: 'run_a' });
    const resume = vi.fn(() => Promise.resolve(resumed));
    expect(await existingChild(store, 'run_parent', 'c1', { resume, waitMs: 10 })).toBe(resumed);
    expect(resume.mock.calls).toEqual([['run_a']]);
  });

  it('waits while the dead lease holds, then resumes; answers as the child stands if it moved meanwhile', async () => {
    vi.useFakeTimers();
    const store = new MemoryStore();
    await childRun(store, 'run_a', { parentCallId: 'c1' });
    let tries = 0;
    const resume = vi.fn(() => {
      tries += 1;
      return tries < 3
        ? Promise.reject(runConflict('run_a', 'lease held'))
        : Promise.resolve(summary({ status: 'completed', runId: 'run_a' }));
    });
    const pending = existingChild(store, 'run_parent', 'c1', { resume, waitMs: 100 });
    await vi.advanceTimersByTimeAsync(100);
    expect(resume).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(100);
    expect((await pending)?.status).toBe('completed');
    expect(resume).toHaveBeenCalledTimes(3);

    // another process drove it on to a suspension meanwhile: answered from the store
    const other = new MemoryStore();
    const child = await childRun(other, 'run_b', { parentCallId: 'c1' });
    const refuse = vi.fn(async () => {
      await other.commit({
        runId: 'run_b',
        expectedVersion: child.version,
        patch: { status: 'failed', reason: 'X' },
      });
      throw runConflict('run_b', 'taken');
    });
    const moved = existingChild(other, 'run_parent', 'c1', { resume: refuse, waitMs: 100 });
    await vi.advanceTimersByTimeAsync(100);
    expect(await moved).toMatchObject({ runId: 'run_b', status: 'failed', reason: 'X' });
    expect(refuse).toHaveBeenCalledTimes(1);
  });

  it('passes on an error that is not a conflict', async () => {
    const store = new MemoryStore();
    await childRun(store, 'run_a', { parentCallId: 'c1' });
    const resume = () => Promise.reject(new RunError('RUN_NOT_FOUND', 'gone', { runId: 'run_a' }));
    await expect(existingChild(store, 'run_parent', 'c1', { resume, waitMs: 10 })).rejects.toMatchObject({
      code: 'RUN_NOT_FOUND',
    });
  });
});

describe('delegateService', () => {
  const CHILD = (id: string, model?: string) =>
    `id: ${id}\nlocale: en\n${model ? `model: ${model}\n` : ''}nodes:\n  - id: work\n`;

  async function setup(options: { dirOfRef?: boolean } = {}) {
    const dir = tempDir('delegates-');
    writeFileSync(join(dir, 'with-model.yaml'), CHILD('ordering', 'scripted:./turns.yaml'));
    writeFileSync(join(dir, 'plain.yaml'), CHILD('billing'));
    const parent = await loadFlow(
      {
        id: 'assistant',
        locale: 'en',
        nodes: [{ id: 'main', delegates: ['./with-model.yaml', './plain.yaml'] }, { id: 'alone' }],
        edges: [{ from: 'main', to: 'alone' }],
      },
      { baseDir: dir },
    );
    const ref: FlowRef = { flow: parent.flow, dir: options.dirOfRef === false ? null : dir };
    const started: Parameters<StartChild>[] = [];
    const startChild = vi.fn<StartChild>((child, spec) => {
      started.push([child, spec]);
      return Promise.resolve(
        summary({ status: 'completed', runId: `run_${child.flow.id}`, outputs: { work: { n: 1 } } }),
      );
    });
    const existing = vi.fn<ExistingChild>(() => Promise.resolve(null));
    const service = delegateService({
      ref,
      cwd: options.dirOfRef === false ? dir : '/nowhere',
      maxFileBytes: 1_000_000,
      runId: 'run_parent',
      tenant: 'acme',
      model: 'openai:gpt-4o',
      startChild,
      existingChild: existing,
    });
    const ctx = (nodeId: string, callId = 'c1') =>
      ({
        flow: parent.flow,
        nodeId,
        call: { callId, tool: 'builtin_node_delegate', rawArgs: '{}' },
      }) as unknown as CallInput;
    return { dir, service, started, startChild, existing, ctx };
  }

  it("lists the ids of the node's delegate flows, in the order of its files, and none for a node without", async () => {
    const { service, ctx } = await setup();
    expect(await service.flows(ctx('main'))).toEqual(['ordering', 'billing']);
    expect(await service.flows(ctx('alone'))).toEqual([]);
  });

  it('resolves the files against the runtime cwd when the parent flow has no folder', async () => {
    const { service, ctx } = await setup({ dirOfRef: false });
    expect(await service.flows(ctx('main'))).toEqual(['ordering', 'billing']);
  });

  it("starts a child with the task as its input text, the child's own model else the parent's, and the parent's call", async () => {
    const { dir, service, started, ctx } = await setup();
    expect(await service.run('ordering', 'order tea', ctx('main', 'c7'))).toEqual({
      status: 'completed',
      childRunId: 'run_ordering',
      outputs: { work: { n: 1 } },
    });
    await service.run('billing', 'bill it', ctx('main', 'c8'));
    expect(started.map(([child, spec]) => [child.flow.id, spec])).toEqual([
      [
        'ordering',
        {
          input: { text: 'order tea' },
          model: `scripted:${join(dir, 'turns.yaml')}`,
          parentRunId: 'run_parent',
          parentCallId: 'c7',
          tenant: 'acme',
        },
      ],
      [
        'billing',
        {
          input: { text: 'bill it' },
          model: 'openai:gpt-4o',
          parentRunId: 'run_parent',
          parentCallId: 'c8',
          tenant: 'acme',
        },
      ],
    ]);
  });

  it('continues the child an earlier attempt of the same call started instead of starting another', async () => {
    const { service, startChild, existing, ctx } = await setup();
    existing.mockResolvedValueOnce(
      summary({ status: 'failed', runId: 'run_old', reason: 'NO_PROGRESS', message: 'm' }),
    );
    expect(await service.run('ordering', 'order tea', ctx('main', 'c3'))).toEqual({
      status: 'failed',
      childRunId: 'run_old',
      reason: 'NO_PROGRESS',
      message: 'm',
    });
    expect(existing.mock.calls).toEqual([['run_parent', 'c3']]);
    expect(startChild).not.toHaveBeenCalled();
  });

  it('refuses a flow that is not a delegate of the node, and a node the flow does not have', async () => {
    const { service, startChild, ctx } = await setup();
    await expect(service.run('shipping', 'x', ctx('main'))).rejects.toThrow(
      'flow shipping is not a delegate of node main',
    );
    await expect(service.run('ordering', 'x', ctx('alone'))).rejects.toThrow(
      'flow ordering is not a delegate of node alone',
    );
    await expect(service.flows(ctx('ghost'))).rejects.toThrow('flow assistant has no node ghost');
    expect(startChild).not.toHaveBeenCalled();
  });

  it('loads the delegate files of a node once', async () => {
    const { dir, service, ctx } = await setup();
    expect(await service.flows(ctx('main'))).toEqual(['ordering', 'billing']);
    // a change of the file after the first load is not seen by this service
    writeFileSync(join(dir, 'plain.yaml'), CHILD('renamed'));
    expect(await service.flows(ctx('main'))).toEqual(['ordering', 'billing']);
    await expect(service.run('renamed', 'x', ctx('main'))).rejects.toThrow('is not a delegate');
  });

  it('fails on a delegate file over the size cap', async () => {
    const dir = tempDir('delegates-');
    writeFileSync(join(dir, 'big.yaml'), `${CHILD('big')}# ${'x'.repeat(2000)}\n`);
    const parent = await loadFlow(
      { id: 'p', locale: 'en', nodes: [{ id: 'main', delegates: ['./big.yaml'] }] },
      { baseDir: dir },
    );
    const service = delegateService({
      ref: { flow: parent.flow, dir },
      cwd: dir,
      maxFileBytes: 100,
      runId: 'run_parent',
      tenant: null,
      model: 'openai:gpt-4o',
      startChild: () => Promise.reject(new Error('not expected')),
      existingChild: () => Promise.resolve(null),
    });
    const ctx = { flow: parent.flow, nodeId: 'main', call: { callId: 'c1' } } as unknown as CallInput;
    await expect(service.flows(ctx)).rejects.toThrow(
      `${join(dir, 'big.yaml')} is larger than 100 bytes (AGENT_RUNTIME_MAX_FILE_BYTES sets the limit)`,
    );
  });
});
