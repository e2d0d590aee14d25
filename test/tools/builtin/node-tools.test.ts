import { describe, expect, it } from 'vitest';
import { FlowSchema } from '../../../src/domain/flow.js';
import { builtinDescriptors } from '../../../src/tools/builtin/registry.js';
import { BUILTIN_NAMES, builtinDescriptor, isBuiltinName } from '../../../src/tools/builtin/descriptors.js';
import { delegateObservation } from '../../../src/tools/builtin/delegate.js';
import type { DelegateResult, DelegateService } from '../../../src/tools/call.js';
import { cloudTools, harness, parts, SITE_FLOW } from '../guards/fixtures.js';

describe('builtin_node_finish / builtin_node_fail', () => {
  it('FINISH_OUTPUTS_MISSING names the missing required keys', async () => {
    const h = harness({ localTools: cloudTools().tools });
    const { obs, report } = await h.call('builtin_node_finish', { summary: '完成' });
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'FINISH_OUTPUTS_MISSING',
      reason: '必填产出未写入：siteId',
      next: '先用 builtin_output_set 写入 siteId，再调用 builtin_node_finish',
      message:
        '必填产出未写入：siteId。下一步：先用 builtin_output_set 写入 siteId，再调用 builtin_node_finish。',
    });
    expect(report.effect).toBeUndefined();
  });

  it('finish completes a node whose required outputs are written (optional ones may be absent)', async () => {
    const h = harness({ localTools: cloudTools().tools });
    h.node.outputs.siteId = { value: 'site_1', sourceType: 'evidence', sourceRef: 'ev_2' };
    const { obs, report } = await h.call('builtin_node_finish', { summary: '已创建' });
    expect(parts(obs)).toMatchObject({ outcome: 'SUCCESS', message: '节点已完成' });
    expect(report.effect).toEqual({ kind: 'finish', summary: '已创建' });
    expect(report.executed).toBe(false);
  });

  it('fail ends the node with the model’s reason', async () => {
    const h = harness({ localTools: cloudTools().tools });
    const { obs, report } = await h.call('builtin_node_fail', { reason: '用户取消' });
    expect(obs.message()).toBe('节点已失败：用户取消');
    expect(report.effect).toEqual({ kind: 'fail', reason: '用户取消' });
  });
});

describe('builtin_node_delegate', () => {
  function withChild(result: DelegateResult) {
    const runs: { flow: string; task: string }[] = [];
    const delegate: DelegateService = {
      flows: () => Promise.resolve(['site-report']),
      run: (flow, task) => {
        runs.push({ flow, task });
        return Promise.resolve(result);
      },
    };
    const h = harness({
      localTools: cloudTools().tools,
      delegate,
      flow: { id: 'p', nodes: [{ id: 'n', delegates: ['./report.yaml'] }] },
    });
    return { h, runs };
  }

  it('DELEGATION_OUT_OF_BOUNDS for a flow not listed', async () => {
    const { h, runs } = withChild({ status: 'completed', childRunId: 'r2', outputs: {} });
    const { obs } = await h.call('builtin_node_delegate', { flow: 'billing', task: '查账' });
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'DELEGATION_OUT_OF_BOUNDS',
      reason: '流程 billing 不在本节点可委派的范围内',
      next: '只委派给本节点允许的流程：site-report',
      message: '流程 billing 不在本节点可委派的范围内。下一步：只委派给本节点允许的流程：site-report。',
    });
    expect(runs).toEqual([]);
  });

  it('a completed child → SUCCESS with its outputs; a failed child → FAILED DELEGATE_FAILED', async () => {
    const done = withChild({ status: 'completed', childRunId: 'r2', outputs: { report: { n: 1 } } });
    const ok = await done.h.call('builtin_node_delegate', { flow: 'site-report', task: '汇总站点' });
    expect(parts(ok.obs)).toMatchObject({ outcome: 'SUCCESS', message: '委派的流程 site-report 已完成' });
    expect(ok.obs.data).toEqual({ runId: 'r2', outputs: { report: { n: 1 } } });
    expect(done.runs).toEqual([{ flow: 'site-report', task: '汇总站点' }]);
    expect(done.h.run.evidence).toEqual([]);

    const failed = withChild({
      status: 'failed',
      childRunId: 'r3',
      reason: 'NO_PROGRESS',
      message: '5 consecutive stalls',
    });
    const bad = await failed.h.call('builtin_node_delegate', { flow: 'site-report', task: '汇总站点' });
    expect(parts(bad.obs)).toEqual({
      outcome: 'FAILED',
      code: 'DELEGATE_FAILED',
      reason: '委派的流程 site-report 失败：5 consecutive stalls',
      next: '调用 builtin_node_follow_up 向用户说明并询问如何处理，或调用 builtin_node_fail 说明原因',
      message:
        '委派的流程 site-report 失败：5 consecutive stalls。下一步：调用 builtin_node_follow_up 向用户说明并询问如何处理，或调用 builtin_node_fail 说明原因。',
    });
    expect(
      delegateObservation({ status: 'failed', childRunId: 'r', reason: 'X', message: '' }, 'f', 'en').reason,
    ).toBe('The delegated flow f failed: X');
  });

  it('a suspended child suspends the parent with the same pending item', async () => {
    const suspension = { kind: 'FOLLOW_UP' as const, pending: { question: '统计哪个空间？', options: null } };
    const { h } = withChild({ status: 'suspended', childRunId: 'r4', suspension });
    const { report } = await h.call('builtin_node_delegate', { flow: 'site-report', task: '汇总' });
    expect(report.effect).toEqual({ kind: 'suspend', suspension, childRunId: 'r4' });
  });
});

describe('builtin descriptors', () => {
  it('every builtin has a closed JSON input schema and a description in both locales; delegate only with delegates', () => {
    const flow = FlowSchema.parse(SITE_FLOW);
    expect(Object.keys(flow.nodes[0]!.outputs).length).toBeGreaterThan(0);
    const zh = builtinDescriptors(flow.nodes[0]!, 'zh-CN', { writes: true });
    const en = builtinDescriptors({ ...flow.nodes[0]!, delegates: ['x.yaml'] }, 'en', { writes: true });
    // builtin_evidence_read is never in a node's static catalog: it is offered once the node run
    // compacted (issue 20); builtin_resource_read once a result linked a resource (issue 30), or from
    // the start with the resource list in a node with `resources`.
    const dynamic = ['builtin_evidence_read', 'builtin_resource_read', 'builtin_resource_list'];
    expect(zh.map((d) => d.name)).toEqual(
      BUILTIN_NAMES.filter((n) => n !== 'builtin_node_delegate' && !dynamic.includes(n)),
    );
    expect(en.map((d) => d.name)).toEqual(BUILTIN_NAMES.filter((n) => !dynamic.includes(n)));
    const browsing = builtinDescriptors({ ...flow.nodes[0]!, resources: ['crm'] }, 'en', { writes: false });
    expect(browsing.map((d) => d.name).slice(-2)).toEqual(['builtin_resource_read', 'builtin_resource_list']);
    for (const d of [
      ...zh,
      ...en,
      builtinDescriptor('builtin_evidence_read', 'zh-CN'),
      builtinDescriptor('builtin_evidence_read', 'en'),
      builtinDescriptor('builtin_resource_read', 'zh-CN'),
      builtinDescriptor('builtin_resource_read', 'en'),
      builtinDescriptor('builtin_resource_list', 'zh-CN'),
      builtinDescriptor('builtin_resource_list', 'en'),
    ]) {
      expect(d.kind).toBe('builtin');
      expect(d.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(d.description.length).toBeGreaterThan(10);
    }
    expect(zh.find((d) => d.name === 'builtin_output_set')!.inputSchema).toMatchObject({
      required: ['key', 'value', 'sourceType'],
    });
    expect(en[0]!.description).toMatch(/^Ends this node/);
    expect(zh[0]!.description).toMatch(/^结束本节点/);
    expect(isBuiltinName('builtin_node_finish')).toBe(true);
    expect(isBuiltinName('space_list')).toBe(false);
  });

  it('only the builtins a node can use: approval with a write tool, output_set with outputs', () => {
    const node = { ...FlowSchema.parse(SITE_FLOW).nodes[0]!, outputs: {} };
    const names = (writes: boolean, outputs: boolean) =>
      builtinDescriptors(
        outputs ? { ...node, outputs: { id: { required: true, sources: ['model'] } } } : node,
        'en',
        { writes },
      ).map((d) => d.name);
    expect(names(false, false)).toEqual([
      'builtin_node_finish',
      'builtin_node_fail',
      'builtin_node_follow_up',
    ]);
    expect(names(true, false)).toEqual([
      'builtin_node_finish',
      'builtin_node_fail',
      'builtin_node_follow_up',
      'builtin_node_approval',
    ]);
    expect(names(false, true)).toEqual([
      'builtin_node_finish',
      'builtin_node_fail',
      'builtin_node_follow_up',
      'builtin_output_set',
    ]);
  });
});
