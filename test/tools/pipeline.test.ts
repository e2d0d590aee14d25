import { describe, expect, it } from 'vitest';
import { applyChanges } from '../../src/records/changes.js';
import { approve } from '../../src/tools/approval/index.js';
import { renderObservation } from '../../src/loop/render.js';
import { cloudTools, harness, parts } from './guards/fixtures.js';

describe('the pipeline, full chain with local tools (the site-builder story)', () => {
  it('query first, gate, approval, write with write-ahead and idempotency key, pending, verify, outputs, finish', async () => {
    const cloud = cloudTools();
    const h = harness({ localTools: cloud.tools, input: { text: '在默认空间创建 官网 和 博客 两个站点' } });

    const early = await h.call('web_site_create', { spaceId: 'sp_1', name: '官网' });
    expect(parts(early.obs)).toMatchObject({ outcome: 'REJECTED', code: 'PARAM_PROVENANCE_QUERY_FIRST' });
    expect(early.report.executed).toBe(false);

    const spaces = await h.call('space_list', {});
    expect(spaces.obs.outcome.name).toBe('SUCCESS');
    expect(spaces.obs.evidenceId).toBe('ev_1');
    expect(renderObservation(spaces.obs, 'zh-CN')).toContain('evidence: ev_1');

    const gated = await h.call('web_site_create', { spaceId: 'sp_1', name: '官网' });
    expect(parts(gated.obs)).toEqual({
      outcome: 'DEFERRED',
      code: 'APPROVAL_REQUIRED',
      reason: '该写操作须经用户确认',
      next: '调用 builtin_node_approval 申请用户确认，参数 tool 填 web_site_create；批准后再用相同参数调用 web_site_create',
      message:
        '该写操作须经用户确认。下一步：调用 builtin_node_approval 申请用户确认，参数 tool 填 web_site_create；批准后再用相同参数调用 web_site_create。',
    });
    expect(h.node.gatedCall).toMatchObject({ tool: 'web_site_create', provenance: { spaceId: 'ev_1' } });

    const asked = await h.call('builtin_node_approval', {
      tool: 'web_site_create',
      summary: '在默认空间创建站点 官网',
    });
    expect(asked.report.effect).toMatchObject({
      kind: 'suspend',
      suspension: {
        kind: 'APPROVAL',
        pending: {
          tool: 'web_site_create',
          args: { spaceId: 'sp_1', name: '官网' },
          provenance: { spaceId: 'ev_1' },
        },
      },
    });
    const granted = approve(
      { run: h.run, node: h.node, nodeId: 'create', locale: 'zh-CN', now: new Date(), logger: h.logger },
      { tool: 'web_site_create', args: h.node.gatedCall!.args, fingerprint: h.node.gatedCall!.fingerprint },
      { who: 'alice', comment: 'ok' },
    );
    applyChanges({ run: h.run, node: h.node }, granted.changes);
    expect(granted.observation.message()).toBe(
      '用户已批准：现在可以用完全相同的参数调用一次 web_site_create',
    );

    const written = await h.call('web_site_create', { name: '官网', spaceId: 'sp_1' });
    expect(written.obs.outcome.name).toBe('SUCCESS');
    expect(written.obs.evidenceId).toBe('ev_2');
    expect(written.report).toMatchObject({ executed: true, approved: true });
    // What the write changed, as values in the order made: the write-ahead mark first.
    expect(written.report.changes.map((c) => c.kind)).toEqual([
      'inFlight',
      'landed',
      'approvalUsed',
      'ungate',
      'pendingWrite',
      'evidence',
    ]);
    expect(h.checkpoints.at(-1)).toEqual({ inFlight: ['web_site_create'] });
    expect(h.run.inFlight).toEqual([]);
    expect(cloud.seen.find((c) => c.tool === 'web_site_create')?.idempotencyKey).toMatch(/^[0-9a-f]{32}$/);
    expect(h.run.approvals[0]?.consumed).toBe(true);
    expect(h.node.gatedCall).toBeNull();
    expect(h.node.pendingWrites).toMatchObject([
      { verifyTool: 'web_site_get', verifyArgs: { siteId: 'site_1' } },
    ]);

    const other = await h.call('web_site_create', { spaceId: 'sp_1', name: '博客' });
    expect(parts(other.obs)).toMatchObject({
      outcome: 'DEFERRED',
      code: 'WRITE_PENDING_VERIFY',
      message:
        '写操作 web_site_create 的结果尚待核实。下一步：调用 web_site_get 核实写操作结果，参数 {"siteId":"site_1"}。',
    });

    const again = await h.call('web_site_create', { spaceId: 'sp_1', name: '官网' });
    expect(again.obs.outcome.name).toBe('SUCCESS');
    expect(again.obs.evidenceId).toBe('ev_2');
    expect(again.report).toMatchObject({ executed: false, reused: true });
    expect(again.obs.message()).toBe('该写操作此前已成功执行，本次未重复执行');

    for (const status of ['CREATING', 'ACTIVE', 'ACTIVE']) {
      const got = await h.call('web_site_get', { siteId: 'site_1' });
      expect(got.obs.data).toMatchObject({ data: { status } });
      if (status === 'CREATING') expect(h.node.pendingWrites).toHaveLength(1);
    }
    expect(h.node.pendingWrites).toEqual([]);

    const output = await h.call('builtin_output_set', {
      key: 'siteId',
      value: 'site_1',
      sourceType: 'evidence',
      sourceRef: 'ev_2',
    });
    expect(output.obs.message()).toBe('产出 [siteId] 已写入');
    const finish = await h.call('builtin_node_finish', { summary: '已创建站点 官网' });
    expect(finish.report.effect).toEqual({ kind: 'finish', summary: '已创建站点 官网' });

    expect(cloud.seen.filter((c) => c.tool === 'web_site_create')).toHaveLength(1);
    const lines = h.logger.lines();
    expect(lines).toContain('INFO TOOL invoked tool=web_site_create outcome=DEFERRED code=APPROVAL_REQUIRED');
    expect(lines).toContain(
      'INFO TOOL invoked tool=web_site_create outcome=REJECTED code=PARAM_PROVENANCE_QUERY_FIRST',
    );
    expect(lines).toContain('INFO TOOL invoked tool=builtin_node_approval outcome=SUCCESS code=-');
    expect(lines.filter((l) => l.includes('tool=builtin_node_approval'))).toHaveLength(1);
  });
});
