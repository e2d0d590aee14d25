import { describe, expect, it } from 'vitest';
import { code } from '../../src/domain/error-codes.js';
import { joinReasonAndNext, Observation, type ObservationJSON } from '../../src/domain/observation.js';
import { Outcome } from '../../src/domain/outcome.js';
import type { ToolImage } from '../../src/domain/tool-image.js';

/**
 * What test/domain/observation.test.ts leaves out: the images a result carries for the model (never
 * persisted), what every copy keeps, the persisted form's edges, and the punctuation of `message`.
 */

const image: ToolImage = { mimeType: 'image/png', data: 'iVBORw0KGgo=', bytes: 8, sha256: 'ab'.repeat(32) };
const other: ToolImage = { mimeType: 'image/jpeg', data: '/9j/', bytes: 3, sha256: 'cd'.repeat(32) };

describe('images', () => {
  it('an observation starts with none', () => {
    expect(Observation.success('ok', 1).images).toEqual([]);
    expect(Observation.failed(code('TOOL_ERROR'), 'r', 'n').images).toEqual([]);
  });

  it('withImages of no images on an observation without images is the same observation', () => {
    const obs = Observation.success('ok', 1);
    expect(obs.withImages([])).toBe(obs);
  });

  it('withImages returns a copy carrying them, the original unchanged', () => {
    const obs = Observation.success('ok', { placeholder: true }).withEvidence('ev_2');
    const copy = obs.withImages([image]);
    expect(copy).not.toBe(obs);
    expect(copy.images).toEqual([image]);
    expect(obs.images).toEqual([]);
    expect([copy.outcome, copy.reason, copy.data, copy.evidenceId]).toEqual([
      Outcome.SUCCESS,
      'ok',
      { placeholder: true },
      'ev_2',
    ]);
  });

  it('withImages of no images drops the images a copy had', () => {
    const withOne = Observation.success('ok', 1).withImages([image]);
    const none = withOne.withImages([]);
    expect(none).not.toBe(withOne);
    expect(none.images).toEqual([]);
  });

  it('withImages replaces, never appends', () => {
    expect(Observation.success('ok').withImages([image]).withImages([other]).images).toEqual([other]);
  });

  it('every other copy keeps the images', () => {
    const failed = Observation.failed(code('MCP_TOOL_ERROR'), 'r', 'n', { a: 1 }).withImages([image]);
    expect(failed.withNext('n2').images).toEqual([image]);
    expect(failed.withEvidence('ev_9').images).toEqual([image]);
    expect(failed.withData({ b: 2 }).images).toEqual([image]);
  });

  it('are never persisted: toJSON leaves them out, and fromJSON gives none back', () => {
    const obs = Observation.success('ok', { shown: 'placeholder' }).withImages([image]);
    const json = obs.toJSON();
    expect(Object.keys(json).sort()).toEqual([
      'data',
      'errorCode',
      'evidenceId',
      'next',
      'outcome',
      'reason',
    ]);
    expect(JSON.stringify(obs)).not.toContain(image.data);
    expect(Observation.fromJSON(json).images).toEqual([]);
  });
});

describe('the persisted form', () => {
  it('of a success: no code, no next step, no evidence unless cited', () => {
    expect(Observation.success('调用 x 成功', [1]).toJSON()).toEqual({
      outcome: 'SUCCESS',
      errorCode: null,
      reason: '调用 x 成功',
      next: null,
      data: [1],
      evidenceId: null,
    });
  });

  it('of a rejection: its code by name and no data', () => {
    expect(Observation.rejected(code('CATALOG_DENIED'), 'r', 'n').toJSON()).toEqual({
      outcome: 'REJECTED',
      errorCode: 'CATALOG_DENIED',
      reason: 'r',
      next: 'n',
      data: undefined,
      evidenceId: null,
    });
  });

  it('fromJSON cites no evidence for a missing, null or empty evidence id', () => {
    const base: ObservationJSON = { outcome: 'SUCCESS', errorCode: null, reason: 'ok', next: null };
    expect(Observation.fromJSON(base).evidenceId).toBeNull();
    expect(Observation.fromJSON({ ...base, evidenceId: null }).evidenceId).toBeNull();
    expect(Observation.fromJSON({ ...base, evidenceId: '' }).evidenceId).toBeNull();
    expect(Observation.fromJSON({ ...base, evidenceId: 'ev_4' }).evidenceId).toBe('ev_4');
  });

  it('fromJSON keeps the data of a failure and the outcome objects are the shared ones', () => {
    const back = Observation.fromJSON({
      outcome: 'FAILED',
      errorCode: 'TOOL_BUSINESS_FAILED',
      reason: '业务失败',
      next: '修正',
      data: { code: 'system.50001' },
      evidenceId: 'ev_1',
    });
    expect(back.outcome).toBe(Outcome.FAILED);
    expect(back.code).toBe(code('TOOL_BUSINESS_FAILED'));
    expect(back.data).toEqual({ code: 'system.50001' });
    expect(back.evidenceId).toBe('ev_1');
  });

  it('fromJSON refuses a success without a summary', () => {
    expect(() =>
      Observation.fromJSON({ outcome: 'SUCCESS', errorCode: null, reason: ' ', next: null }),
    ).toThrow('an observation needs a non-empty summary');
  });
});

describe('the factories refuse what is not text', () => {
  it('a summary, reason or next step that is not a string', () => {
    const notText = 42 as unknown as string;
    expect(() => Observation.success(notText)).toThrow('an observation needs a non-empty summary');
    expect(() => Observation.failed(code('TOOL_ERROR'), notText, 'n')).toThrow(
      'an observation needs a non-empty reason',
    );
    expect(() => Observation.deferred(code('WRITE_IN_FLIGHT'), 'r', notText)).toThrow(
      'an observation needs a non-empty next step',
    );
  });

  it('checks the code before the texts', () => {
    expect(() => Observation.rejected(code('TOOL_ERROR'), '', '')).toThrow(
      'error code TOOL_ERROR belongs to FAILED, not REJECTED',
    );
  });
});

describe('joinReasonAndNext', () => {
  it('trims every trailing full stop of the reason, of either script', () => {
    expect(joinReasonAndNext('zh-CN', '出错了。。', '重试')).toBe('出错了。下一步：重试。');
    expect(joinReasonAndNext('en', 'Failed...', 'retry')).toBe('Failed. Next: retry.');
    expect(joinReasonAndNext('en', 'Failed.。', 'retry')).toBe('Failed. Next: retry.');
  });

  it('ends the next step with exactly one full stop of the locale', () => {
    expect(joinReasonAndNext('zh-CN', '原因', '重试。.')).toBe('原因。下一步：重试。');
    expect(joinReasonAndNext('en', 'Reason', 'retry.。.')).toBe('Reason. Next: retry.');
  });

  it('keeps full stops inside the texts', () => {
    expect(joinReasonAndNext('en', 'Version 1.5 failed', 'use v2.0 instead')).toBe(
      'Version 1.5 failed. Next: use v2.0 instead.',
    );
    expect(joinReasonAndNext('zh-CN', '第一句。第二句', '先做 A。再做 B')).toBe(
      '第一句。第二句。下一步：先做 A。再做 B。',
    );
  });

  it('is what message() says for a non-success, per locale', () => {
    const obs = Observation.deferred(code('WRITE_PENDING_VERIFY'), 'pending.', 'call web_site_get.');
    expect(obs.message('en')).toBe(joinReasonAndNext('en', 'pending.', 'call web_site_get.'));
    expect(obs.message('en')).toBe('pending. Next: call web_site_get.');
    expect(obs.message('zh-CN')).toBe('pending。下一步：call web_site_get。');
  });
});
