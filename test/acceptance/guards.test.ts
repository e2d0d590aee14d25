/**
 * Acceptance scenarios 6, 7, 9, 10 and 12 of the seed (TOOL_OBSERVATION.zh.md §9) and the seed's
 * incident (five identical rejections fail the node with NO_PROGRESS): see docs/acceptance.md.
 */
import { describe, expect, it } from 'vitest';
import { flowFile, turnsFile } from './cli.js';
import { SITE_INPUT, expectRun, message, reason, useSandbox, zh, SCENARIO_TIMEOUT_MS } from './scenario.js';
import { after, expectTraceContract, invoked, nextStep, ofType, one } from './trace.js';

const sandbox = useSandbox();
const QUERY_INPUT = '查询我的空间和站点';

describe.concurrent('acceptance: guards, failures and node endings', { timeout: SCENARIO_TIMEOUT_MS }, () => {
  it('6: parameter provenance violations are REJECTED (query first, mismatch, ask first), each counting a stall', async () => {
    const box = sandbox();
    const r = await box.run(flowFile('site'), turnsFile('provenance'), SITE_INPUT);
    const summary = expectRun(r, 1, 'failed');
    expect(summary).toMatchObject({
      reason: 'FAILED_BY_MODEL',
      failedNode: 'create',
      message: '无法确定要创建的站点参数',
    });
    expect(summary.outputs).toEqual({ query: {} });
    expectTraceContract(r.events);

    const [notJson, queryFirst, mismatch, askFirst, ...more] = invoked(r.events, 'web_site_create');
    expect(more).toEqual([]);
    // Arguments that are not JSON are traced as the raw string.
    expect(notJson).toMatchObject({
      outcome: 'REJECTED',
      errorCode: 'ARG_JSON_INVALID',
      args: '{spaceId: s1',
      executed: false,
    });
    expect(queryFirst).toMatchObject({
      outcome: 'REJECTED',
      errorCode: 'PARAM_PROVENANCE_QUERY_FIRST',
      executed: false,
    });
    expect(nextStep(queryFirst!.message)).toContain('space_list');
    expect(mismatch).toMatchObject({
      outcome: 'REJECTED',
      errorCode: 'PARAM_PROVENANCE_MISMATCH',
      args: { spaceId: 's9' },
    });
    expect(nextStep(mismatch!.message)).toMatch(/s1.*s2/);
    expect(askFirst).toMatchObject({
      outcome: 'REJECTED',
      errorCode: 'PARAM_PROVENANCE_ASK_FIRST',
      args: { name: '博客' },
    });
    expect(askFirst!.message).toContain('博客');
    expect(nextStep(askFirst!.message)).toContain('builtin_node_follow_up');
    for (const rejected of [notJson!, queryFirst!, mismatch!, askFirst!])
      expect(after(r.events, rejected)?.type).toBe('react.stall');
    // The space_list success in between resets the count.
    expect(ofType(r.events, 'react.stall').map((e) => e.stalls)).toEqual([1, 2, 1, 2]);

    expect(one(ofType(r.events, 'node.failed'))).toMatchObject({
      nodeId: 'create',
      reason: 'FAILED_BY_MODEL',
      message: '无法确定要创建的站点参数',
    });
    expect(r.events.at(-1)).toMatchObject({
      type: 'run.failed',
      reason: 'FAILED_BY_MODEL',
      failedNode: 'create',
      message: '无法确定要创建的站点参数',
    });
    expect(box.writes()).toEqual([]);
  });

  it('7: an MCP tool timeout is FAILED TOOL_TIMEOUT at level warn, executed, and counts a stall', async () => {
    const box = sandbox();
    const r = await box.run(flowFile('timeout'), turnsFile('timeout'), '检查服务是否可用');
    const summary = expectRun(r, 0, 'completed');
    expect(summary.outputs).toEqual({ probe: {} });
    expectTraceContract(r.events);

    const [slow, quick] = invoked(r.events, 'slow_query');
    expect(slow).toMatchObject({
      args: { ms: 20000 },
      outcome: 'FAILED',
      errorCode: 'TOOL_TIMEOUT',
      level: 'warn',
      executed: true,
      evidenceId: 'ev_1',
      message: message(reason('TOOL_TIMEOUT', { tool: 'slow_query', timeoutMs: 1500 }), zh('NEXT_TIMEOUT')),
    });
    expect(after(r.events, slow!)).toMatchObject({ type: 'react.stall', stalls: 1, maxStalls: 5 });
    expect(quick).toMatchObject({ outcome: 'SUCCESS', evidenceId: 'ev_2', level: 'info' });
    expect(r.stderr).toContain('WARN TOOL invoked tool=slow_query outcome=FAILED code=TOOL_TIMEOUT');
    // The runtime did not wait the 20 s of the slow query (the whole CLI run, process starts included,
    // ends before it would have answered), and the server saw the call cancelled.
    expect(r.ms).toBeLessThan(20_000);
    expect(box.cancelled().map((c) => c.tool)).toEqual(['slow_query']);
  });

  it('9: a query node without required outputs finishes right after its queries; no phase hint, no "写 outputs" anywhere', async () => {
    const box = sandbox();
    const r = await box.run(flowFile('query'), turnsFile('query-finish'), QUERY_INPUT);
    const summary = expectRun(r, 0, 'completed');
    expect(summary.outputs).toEqual({ query: {} });
    expectTraceContract(r.events);
    expect(r.events.map((e) => e.type)).toEqual([
      'run.started',
      'node.started',
      'react.round',
      // The revision the flow's MCP server negotiated, at the node's first round in this process.
      'mcp.connected',
      'model.response',
      'tool.invoked',
      'tool.invoked',
      'react.round',
      'model.response',
      'tool.invoked',
      'node.completed',
      'run.completed',
    ]);
    expect(invoked(r.events).map((e) => [e.tool, e.outcome, e.evidenceId])).toEqual([
      ['space_list', 'SUCCESS', 'ev_1'],
      ['web_site_list', 'SUCCESS', 'ev_2'],
      ['builtin_node_finish', 'SUCCESS', null],
    ]);
    expect(one(ofType(r.events, 'node.completed'))).toMatchObject({ nodeId: 'query', outputs: {} });
    expect(r.events.at(-1)).toMatchObject({ type: 'run.completed', outputs: { query: {} } });

    const everything = [r.stdout, r.stderr, JSON.stringify(box.allEvents()), ...box.storedMessages()].join(
      '\n',
    );
    expect(box.storedMessages().length).toBeGreaterThan(0);
    expect(everything).not.toMatch(/写\s*outputs|write outputs/i);
  });

  it('10: a rejected builtin_output_set says "来源校验失败：…。下一步：…" with "也可以不写" for an optional output; the model corrects it once', async () => {
    const box = sandbox();
    const r = await box.run(flowFile('query'), turnsFile('output-rejected'), QUERY_INPUT);
    const summary = expectRun(r, 0, 'completed');
    expect(summary.outputs).toEqual({ query: { sites: [] } });
    expectTraceContract(r.events);

    const [rejected, accepted, ...more] = invoked(r.events, 'builtin_output_set');
    expect(more).toEqual([]);
    expect(rejected).toMatchObject({
      outcome: 'REJECTED',
      errorCode: 'OUTPUT_SOURCE_INVALID',
      executed: false,
    });
    expect(rejected!.message).toMatch(/^来源校验失败：space_list.*。下一步：/);
    expect(nextStep(rejected!.message)).toContain('web_site_list');
    expect(nextStep(rejected!.message)).toContain(zh('NEXT_OPTIONAL_OUTPUT'));
    expect(after(r.events, rejected!)).toMatchObject({ type: 'react.stall', stalls: 1 });
    expect(accepted).toMatchObject({ outcome: 'SUCCESS', message: zh('OUTPUT_WRITTEN', { key: 'sites' }) });
    expect(one(ofType(r.events, 'node.completed'))).toMatchObject({ outputs: { sites: [] } });
  });

  it('12: a downstream business failure is FAILED TOOL_BUSINESS_FAILED with the downstream code in the reason and a next step', async () => {
    const box = sandbox();
    const r = await box.run(flowFile('query'), turnsFile('business-failure'), QUERY_INPUT);
    expectRun(r, 0, 'completed');
    expectTraceContract(r.events);

    const [failed, ok] = invoked(r.events, 'web_site_list');
    expect(failed).toMatchObject({
      args: { spaceId: 's9' },
      outcome: 'FAILED',
      errorCode: 'TOOL_BUSINESS_FAILED',
      level: 'warn',
      executed: true,
      evidenceId: 'ev_1',
      message: message(
        reason('TOOL_BUSINESS_FAILED', { code: 'system.40401', message: '空间不存在' }),
        zh('NEXT_BUSINESS'),
      ),
    });
    expect(failed!.message).toContain('[system.40401]');
    expect(after(r.events, failed!)).toMatchObject({ type: 'react.stall', stalls: 1 });
    // A round without tool calls is a stall too, traced as react.no_tool_calls.
    const silent = one(ofType(r.events, 'react.no_tool_calls'));
    expect(silent).toMatchObject({ nodeId: 'query', round: 2, stalls: 2 });
    expect(after(r.events, silent)).toMatchObject({ type: 'react.stall', stalls: 2 });
    expect(r.stderr).toContain('REACT no_tool_calls');
    expect(ok).toMatchObject({ outcome: 'SUCCESS', evidenceId: 'ev_3' });
    expect(ofType(r.events, 'react.stall').map((e) => e.stalls)).toEqual([1, 2]);
    expect(r.stderr).toContain(
      'WARN TOOL invoked tool=web_site_list outcome=FAILED code=TOOL_BUSINESS_FAILED',
    );
  });

  it('five identical rejected calls fail the node with NO_PROGRESS (exit 1, run.failed names the node)', async () => {
    const box = sandbox();
    const r = await box.run(flowFile('query'), turnsFile('no-progress'), QUERY_INPUT);
    const summary = expectRun(r, 1, 'failed');
    expect(summary).toMatchObject({
      reason: 'NO_PROGRESS',
      failedNode: 'query',
      message: expect.any(String),
    });
    expect(summary.outputs).toEqual({});
    expectTraceContract(r.events);

    const rejected = invoked(r.events, 'builtin_output_set');
    expect(rejected).toHaveLength(5);
    for (const e of rejected) expect(e.outcome).toBe('REJECTED');
    expect(rejected[0]).toMatchObject({ errorCode: 'OUTPUT_VALUE_MISMATCH' });
    expect(rejected[0]!.message).toMatch(/^来源校验失败：web_site_list.*。下一步：/);
    expect(ofType(r.events, 'react.stall').map((e) => e.stalls)).toEqual([1, 2, 3, 4, 5]);
    expect(ofType(r.events, 'model.response')).toHaveLength(6);
    expect(invoked(r.events, 'builtin_node_finish')).toEqual([]);
    expect(r.events.slice(-3).map((e) => e.type)).toEqual(['react.stall', 'node.failed', 'run.failed']);
    expect(r.events.at(-2)).toMatchObject({ nodeId: 'query', reason: 'NO_PROGRESS' });
    expect(r.events.at(-1)).toMatchObject({ reason: 'NO_PROGRESS', failedNode: 'query' });
  });
});
