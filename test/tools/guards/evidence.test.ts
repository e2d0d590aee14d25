import { describe, expect, it } from 'vitest';
import { code } from '../../../src/domain/error-codes.js';
import { fingerprint } from '../../../src/domain/fingerprint.js';
import { Observation } from '../../../src/domain/observation.js';
import { buildCatalog, catalogGuard } from '../../../src/tools/catalog.js';
import { argPolicyGuard } from '../../../src/tools/guards/arg-policy.js';
import { evidenceGuard, nextEvidenceId } from '../../../src/tools/guards/evidence.js';
import { FlowSchema } from '../../../src/domain/flow.js';
import { answering, cloudTools, harness, parts } from './fixtures.js';

const guards = () => ({ checks: [catalogGuard(), argPolicyGuard()], after: [evidenceGuard()] });
const answer = answering;

describe('Evidence alone', () => {
  it('records executed SUCCESS and FAILED calls of real tools as ev_1, ev_2… and cites them', async () => {
    const h = harness({ localTools: cloudTools().tools });
    const ok = await h.through(
      guards(),
      'web_site_list',
      { spaceId: 'sp_1' },
      answer(Observation.success('ok', { code: 0, data: [] })),
    );
    expect(ok.obs.evidenceId).toBe('ev_1');
    const failed = await h.through(
      guards(),
      'space_list',
      {},
      answer(Observation.failed(code('TOOL_TIMEOUT'), '超时', '重试')),
    );
    expect(failed.obs.evidenceId).toBe('ev_2');
    expect(parts(failed.obs)).toMatchObject({ outcome: 'FAILED', code: 'TOOL_TIMEOUT' });
    expect(h.run.evidence[0]).toEqual({
      id: 'ev_1',
      tool: 'web_site_list',
      args: { spaceId: 'sp_1' },
      fingerprint: fingerprint('web_site_list', { spaceId: 'sp_1' }),
      outcome: 'SUCCESS',
      errorCode: null,
      payload: { code: 0, data: [] },
      ts: '2026-01-01T00:00:01.000Z',
      nodeId: 'create',
      callId: ok.ctx.call.callId,
    });
    expect(h.run.evidence[1]).toMatchObject({ outcome: 'FAILED', errorCode: 'TOOL_TIMEOUT' });
  });

  it('never records calls stopped before execution, reuses or builtins', async () => {
    const h = harness({ localTools: cloudTools().tools });
    await h.through(
      guards(),
      'space_list',
      {},
      answer(Observation.rejected(code('FINGERPRINT_TRIP'), 'r', 'n'), false),
    );
    await h.through(
      guards(),
      'space_list',
      {},
      answer(Observation.success('reused', {}).withEvidence('ev_9'), false),
    );
    await h.through(guards(), 'builtin_node_fail', { reason: 'x' }, answer(Observation.success('ok')));
    expect(h.run.evidence).toEqual([]);
  });

  it('numbers after the highest id already used', () => {
    const base = {
      tool: 't',
      args: {},
      fingerprint: 'f',
      outcome: 'SUCCESS' as const,
      errorCode: null,
      payload: null,
      ts: '',
      nodeId: 'n',
      callId: 'c',
    };
    expect(nextEvidenceId([])).toBe('ev_1');
    expect(
      nextEvidenceId([
        { ...base, id: 'ev_3' },
        { ...base, id: 'ev_7' },
      ]),
    ).toBe('ev_8');
  });
});

describe('catalog', () => {
  const flow = FlowSchema.parse({
    id: 'f',
    tools: { space_list: { write: true } },
    nodes: [
      { id: 'a', tools: ['space_list', 'web_site_list', 'nope'] },
      { id: 'b', tools: [], delegates: ['child.yaml'] },
    ],
  });
  const tools = cloudTools().tools.map((t) => t.descriptor);

  it('lists the node’s tools, then the builtins it can use (approval with a write, delegate with delegates), and the missing names', () => {
    const a = buildCatalog({ flow, nodeId: 'a', tools });
    expect([...a.visible.keys()]).toEqual([
      'space_list',
      'web_site_list',
      'builtin_node_finish',
      'builtin_node_fail',
      'builtin_node_follow_up',
      'builtin_node_approval',
    ]);
    expect(a.missing).toEqual(['nope']);
    expect(a.tools.size).toBe(4);
    // b has no write tool (no approval) and no outputs (no output_set), but delegates.
    expect([...buildCatalog({ flow, nodeId: 'b', tools }).visible.keys()]).toEqual([
      'builtin_node_finish',
      'builtin_node_fail',
      'builtin_node_follow_up',
      'builtin_node_delegate',
    ]);
  });

  it('CATALOG_DENIED for a tool not visible in the node; sets policy and isWrite otherwise', async () => {
    const h = harness({
      localTools: cloudTools().tools,
      flow: { ...flow, nodes: [{ id: 'a', tools: ['space_list'] }] },
    });
    const denied = await h.through([catalogGuard()], 'web_site_create', {});
    expect(parts(denied.obs)).toEqual({
      outcome: 'REJECTED',
      code: 'CATALOG_DENIED',
      reason: '工具 web_site_create 在当前节点不可用',
      next: '只调用本节点可用的工具：space_list、builtin_node_finish、builtin_node_fail、builtin_node_follow_up、builtin_node_approval',
      message:
        '工具 web_site_create 在当前节点不可用。下一步：只调用本节点可用的工具：space_list、builtin_node_finish、builtin_node_fail、builtin_node_follow_up、builtin_node_approval。',
    });
    const ctx = h.ctx('space_list', {});
    expect(await catalogGuard()(ctx)).toMatchObject({ isWrite: true, policy: { write: true } });
  });
});
