import { describe, expect, it } from 'vitest';
import { approve } from '../../src/tools/approval/index.js';
import type { CallInput, CallReport, CallWatch } from '../../src/tools/call.js';
import { createPipeline } from '../../src/tools/pipeline.js';
import { cloudTools, harness, type Harness, respond } from './guards/fixtures.js';

/** A telemetry stage that records what it was told, and how many log lines existed at each moment. */
function recording(h: Harness) {
  const seen: string[] = [];
  const reports: CallReport[] = [];
  const errors: unknown[] = [];
  const telemetry: CallWatch = (input) => {
    seen.push(`start ${input.call.tool} logged=${h.logger.records.length}`);
    return {
      ended: (report) => {
        seen.push(`ended logged=${h.logger.records.length}`);
        reports.push(report);
      },
      threw: (error) => {
        seen.push(`threw logged=${h.logger.records.length}`);
        errors.push(error);
      },
    };
  };
  return { seen, reports, errors, telemetry };
}

function withTelemetry(input: CallInput, telemetry: CallWatch, extra: object = {}): CallInput {
  return { ...input, services: { ...input.services, telemetry, ...extra } };
}

describe('one call, one value', () => {
  it('the pipeline resolves to a frozen report and writes nothing onto the call input', async () => {
    const cloud = cloudTools();
    const h = harness({ localTools: cloud.tools });
    const input = h.ctx('space_list', {});
    const keys = Object.keys(input).sort();

    const report = await createPipeline()(input);

    expect(Object.isFrozen(report)).toBe(true);
    expect(report).toMatchObject({
      executed: true,
      reused: false,
      approved: false,
      isWrite: false,
      counted: true,
      args: {},
      descriptor: { name: 'space_list' },
    });
    expect(report.fingerprint).toMatch(/^space_list#/);
    expect(report.observation.evidenceId).toBe('ev_1');
    expect(Object.keys(input).sort()).toEqual(keys);
  });

  it('a call a check stops reports what was learnt before it, and nothing of the stages after', async () => {
    const h = harness({ localTools: cloudTools().tools });
    const report = await createPipeline()(h.ctx('web_site_create', { spaceId: 'sp_1', name: '官网' }));
    expect(report.observation.errorCode).toBe('PARAM_PROVENANCE_QUERY_FIRST');
    expect(report).toMatchObject({ executed: false, isWrite: true, counted: false, approved: false });
    expect(report.args).toEqual({ spaceId: 'sp_1', name: '官网' });
  });
});

describe('telemetry is a stage of the chain', () => {
  it('starts before the first check and ends after the log line, with the report', async () => {
    const h = harness({ localTools: cloudTools().tools });
    const r = recording(h);
    const report = await createPipeline()(withTelemetry(h.ctx('space_list', {}), r.telemetry));
    expect(r.seen).toEqual(['start space_list logged=0', 'ended logged=1']);
    expect(r.reports).toEqual([report]);
    expect(h.logger.records[0]).toMatchObject({ message: 'TOOL invoked', fields: { tool: 'space_list' } });
  });

  it('sees a stopped call too', async () => {
    const h = harness({ localTools: cloudTools().tools });
    const r = recording(h);
    await createPipeline()(withTelemetry(h.ctx('no_such_tool', {}), r.telemetry));
    expect(r.seen).toEqual(['start no_such_tool logged=0', 'ended logged=1']);
    expect(r.reports[0]?.observation.errorCode).toBe('CATALOG_DENIED');
    expect(r.reports[0]?.descriptor).toBeUndefined();
  });

  it('is told when the pipeline throws (a checkpoint refused before a write), and the error is rethrown unlogged', async () => {
    const h = harness({ localTools: cloudTools().tools });
    const pipeline = createPipeline();
    await pipeline(h.ctx('space_list', {}));
    const args = { spaceId: 'sp_1', name: '官网' };
    await pipeline(h.ctx('web_site_create', args));
    const gated = h.node.gatedCall!;
    respond(
      h,
      approve(
        { run: h.run, node: h.node, nodeId: h.flow.nodes[0]!.id, locale: 'zh-CN', now: new Date() },
        { tool: gated.tool, args: gated.args, fingerprint: gated.fingerprint },
      ),
    );
    const logged = h.logger.records.length;
    const r = recording(h);
    const refused = new Error('the run changed meanwhile');
    const checkpoint = () => Promise.reject(refused);

    await expect(
      pipeline(withTelemetry(h.ctx('web_site_create', args), r.telemetry, { checkpoint })),
    ).rejects.toBe(refused);
    expect(r.seen).toEqual([`start web_site_create logged=${logged}`, `threw logged=${logged}`]);
    expect(r.errors).toEqual([refused]);
  });
});
