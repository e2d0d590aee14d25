import { describe, expect, it } from 'vitest';
import { code, RuntimeErrorCode } from '../../src/domain/error-codes.js';
import { hint } from '../../src/domain/hints.js';
import { joinReasonAndNext, Observation, type ObservationJSON } from '../../src/domain/observation.js';
import { Outcome } from '../../src/domain/outcome.js';

const NEXT_REQUIRED = hint('zh-CN', 'NEXT_REQUIRED_MISSING');

describe('Observation factories', () => {
  it('success: summary and payload, no code, no next step', () => {
    const obs = Observation.success('调用 space_list 成功', { code: 0, data: [] });
    expect(obs.outcome).toBe(Outcome.SUCCESS);
    expect(obs.ok).toBe(true);
    expect(obs.code).toBeNull();
    expect(obs.errorCode).toBeNull();
    expect(obs.next).toBeNull();
    expect(obs.data).toEqual({ code: 0, data: [] });
    expect(obs.evidenceId).toBeNull();
  });

  it('success refuses an empty summary', () => {
    expect(() => Observation.success('  ', {})).toThrow(/non-empty summary/);
  });

  it('failed: code, reason, next and response body', () => {
    const obs = Observation.failed(
      code('TOOL_TIMEOUT'),
      '工具 x 调用超时（5 ms）',
      hint('zh-CN', 'NEXT_TIMEOUT'),
      { partial: true },
    );
    expect(obs.outcome).toBe(Outcome.FAILED);
    expect(obs.ok).toBe(false);
    expect(obs.errorCode).toBe('TOOL_TIMEOUT');
    expect(obs.data).toEqual({ partial: true });
  });

  it('rejected: code, reason, next; no data', () => {
    const obs = Observation.rejected(code('PARAM_REQUIRED_MISSING'), '缺少必填参数 [buyer]', NEXT_REQUIRED);
    expect(obs.outcome).toBe(Outcome.REJECTED);
    expect(obs.errorCode).toBe('PARAM_REQUIRED_MISSING');
    expect(obs.data).toBeUndefined();
  });

  it('deferred: code, reason, the prerequisite step', () => {
    const obs = Observation.deferred(
      code('APPROVAL_REQUIRED'),
      '该写操作须经用户确认',
      hint('zh-CN', 'NEXT_APPROVAL_REQUIRED', { tool: 'web_site_create' }),
    );
    expect(obs.outcome).toBe(Outcome.DEFERRED);
    expect(obs.next).toContain('builtin_node_approval');
  });

  const nonSuccess = [
    [
      'failed',
      (c: RuntimeErrorCode | null, r: string, n: string | null) => Observation.failed(c!, r, n!),
      code('TOOL_ERROR'),
    ],
    [
      'rejected',
      (c: RuntimeErrorCode | null, r: string, n: string | null) => Observation.rejected(c!, r, n!),
      code('ARG_REJECTED'),
    ],
    [
      'deferred',
      (c: RuntimeErrorCode | null, r: string, n: string | null) => Observation.deferred(c!, r, n!),
      code('WRITE_IN_FLIGHT'),
    ],
  ] as const;

  it.each(nonSuccess)('%s refuses construction without an error code', (_name, make) => {
    expect(() => make(null, 'reason', 'next')).toThrow(/needs an error code/);
  });

  it.each(nonSuccess)(
    '%s refuses construction without a next step (null, empty, blank)',
    (_name, make, c) => {
      expect(() => make(c, 'reason', null)).toThrow(/non-empty next step/);
      expect(() => make(c, 'reason', '')).toThrow(/non-empty next step/);
      expect(() => make(c, 'reason', '   ')).toThrow(/non-empty next step/);
    },
  );

  it.each(nonSuccess)('%s refuses construction without a reason', (_name, make, c) => {
    expect(() => make(c, '', 'next')).toThrow(/non-empty reason/);
  });

  it('refuses a code with another outcome than the SPEC table gives it', () => {
    expect(() => Observation.failed(code('ARG_REJECTED'), 'r', 'n')).toThrow(
      /ARG_REJECTED belongs to REJECTED, not FAILED/,
    );
    expect(() => Observation.rejected(code('TOOL_TIMEOUT'), 'r', 'n')).toThrow(
      /TOOL_TIMEOUT belongs to FAILED, not REJECTED/,
    );
    expect(() => Observation.deferred(code('FINGERPRINT_TRIP'), 'r', 'n')).toThrow(
      /belongs to REJECTED, not DEFERRED/,
    );
    expect(() => Observation.failed(code('APPROVAL_REQUIRED'), 'r', 'n')).toThrow(
      /belongs to DEFERRED, not FAILED/,
    );
  });

  it('accepts every code with exactly its own outcome', () => {
    for (const c of RuntimeErrorCode.values()) {
      const obs =
        c.outcome === 'FAILED'
          ? Observation.failed(c, 'r', 'n')
          : c.outcome === 'REJECTED'
            ? Observation.rejected(c, 'r', 'n')
            : Observation.deferred(c, 'r', 'n');
      expect(obs.outcome.name, c.name).toBe(c.outcome);
    }
  });
});

describe('Observation.message', () => {
  it('zh-CN: `<原因>。下一步：<下一步>` (SPEC example)', () => {
    const obs = Observation.rejected(code('PARAM_REQUIRED_MISSING'), '缺少必填参数 [buyer]', NEXT_REQUIRED);
    expect(obs.message('zh-CN')).toBe(
      '缺少必填参数 [buyer]。下一步：补齐后再调用；无法补齐时调用 builtin_node_follow_up 询问用户，或调用 builtin_node_fail 说明原因。',
    );
  });

  it('en: `<reason>. Next: <next step>`', () => {
    const obs = Observation.rejected(
      code('PARAM_REQUIRED_MISSING'),
      'Missing required argument [buyer]',
      hint('en', 'NEXT_REQUIRED_MISSING'),
    );
    expect(obs.message('en')).toBe(
      'Missing required argument [buyer]. Next: add it and call again; if you cannot, ask the user with builtin_node_follow_up, or call builtin_node_fail with the reason.',
    );
  });

  it('defaults to zh-CN', () => {
    const obs = Observation.failed(code('TOOL_ERROR'), '出错', '重试');
    expect(obs.message()).toBe('出错。下一步：重试。');
  });

  it('does not double final punctuation in either locale', () => {
    expect(joinReasonAndNext('zh-CN', '出错了。', '重试。')).toBe('出错了。下一步：重试。');
    expect(joinReasonAndNext('zh-CN', 'failed.', 'retry.')).toBe('failed。下一步：retry。');
    expect(joinReasonAndNext('en', 'It failed.', 'retry.')).toBe('It failed. Next: retry.');
    expect(joinReasonAndNext('en', '出错了。', '重试。')).toBe('出错了. Next: 重试.');
  });

  it('a success message is its summary', () => {
    expect(Observation.success('调用 x 成功', null).message('en')).toBe('调用 x 成功');
  });

  it('keeps reason and next step as separate fields', () => {
    const obs = Observation.failed(code('TOOL_IO_ERROR'), 'reason text', 'next text');
    expect(obs.reason).toBe('reason text');
    expect(obs.next).toBe('next text');
  });
});

describe('Observation copies', () => {
  it('withNext replaces the next step only, and refuses an empty one', () => {
    const obs = Observation.failed(code('MCP_TOOL_ERROR'), 'r', 'n1', { a: 1 }).withEvidence('ev_3');
    const copy = obs.withNext('n2');
    expect(copy).not.toBe(obs);
    expect(copy.next).toBe('n2');
    expect(obs.next).toBe('n1');
    expect([copy.outcome, copy.code, copy.reason, copy.data, copy.evidenceId]).toEqual([
      obs.outcome,
      obs.code,
      'r',
      { a: 1 },
      'ev_3',
    ]);
    expect(() => obs.withNext(' ')).toThrow(/non-empty next step/);
  });

  it('withNext is refused on a success', () => {
    expect(() => Observation.success('ok', 1).withNext('x')).toThrow(/SUCCESS observation has no next step/);
  });

  it('withEvidence and withData return changed copies', () => {
    const obs = Observation.success('ok', 1);
    expect(obs.withEvidence('ev_7').evidenceId).toBe('ev_7');
    expect(obs.withData(2).data).toBe(2);
    expect(obs.evidenceId).toBeNull();
    expect(obs.data).toBe(1);
  });
});

describe('Observation JSON', () => {
  const samples: [string, Observation][] = [
    [
      'success',
      Observation.success('调用 space_list 成功', { code: 0, data: [{ spaceId: 's1' }] }).withEvidence(
        'ev_1',
      ),
    ],
    ['failed', Observation.failed(code('TOOL_TIMEOUT'), '超时', '重试', { x: 1 })],
    ['rejected', Observation.rejected(code('FINGERPRINT_TRIP'), '重复', '换参数')],
    ['deferred', Observation.deferred(code('WRITE_PENDING_VERIFY'), '待核实', '调用 web_site_get')],
  ];

  it.each(samples)('%s round-trips through toJSON/fromJSON', (_name, obs) => {
    const json = JSON.parse(JSON.stringify(obs)) as ObservationJSON;
    const back = Observation.fromJSON(json);
    expect(back.toJSON()).toEqual(obs.toJSON());
    expect(back.outcome).toBe(obs.outcome);
    expect(back.code).toBe(obs.code);
    expect(back.message('en')).toBe(obs.message('en'));
  });

  it('stores the code as its name', () => {
    expect(Observation.failed(code('MCP_INVALID_PARAMS'), 'r', 'n').toJSON()).toMatchObject({
      outcome: 'FAILED',
      errorCode: 'MCP_INVALID_PARAMS',
    });
  });

  it('fromJSON goes through the same checks', () => {
    expect(() =>
      Observation.fromJSON({ outcome: 'FAILED', errorCode: null, reason: 'r', next: 'n' }),
    ).toThrow(/needs an error code/);
    expect(() =>
      Observation.fromJSON({ outcome: 'REJECTED', errorCode: 'ARG_REJECTED', reason: 'r', next: null }),
    ).toThrow(/next step/);
    expect(() =>
      Observation.fromJSON({ outcome: 'FAILED', errorCode: 'ARG_REJECTED', reason: 'r', next: 'n' }),
    ).toThrow(/belongs to REJECTED/);
    expect(() =>
      Observation.fromJSON({ outcome: 'FAILED', errorCode: 'NOPE', reason: 'r', next: 'n' }),
    ).toThrow(/unknown RuntimeErrorCode/);
    expect(() =>
      Observation.fromJSON({ outcome: 'MAYBE' as 'FAILED', errorCode: null, reason: 'r', next: null }),
    ).toThrow(/unknown outcome/);
  });
});
