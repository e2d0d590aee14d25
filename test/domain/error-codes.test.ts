import { describe, expect, it } from 'vitest';
import { code, fill, RuntimeErrorCode } from '../../src/domain/error-codes.js';
import { LOCALES } from '../../src/domain/locale.js';

/** The RuntimeErrorCode table (docs/observations.md): name, number, outcome — in table order. */
const SPEC_TABLE: readonly [string, number, string][] = [
  ['TOOL_TIMEOUT', 50401, 'FAILED'],
  ['TOOL_UNREACHABLE', 50301, 'FAILED'],
  ['TOOL_IO_ERROR', 50201, 'FAILED'],
  ['MCP_RPC_ERROR', 50202, 'FAILED'],
  ['MCP_INVALID_PARAMS', 50203, 'FAILED'],
  ['MCP_TOOL_ERROR', 50001, 'FAILED'],
  ['TOOL_ERROR', 50000, 'FAILED'],
  ['TOOL_BUSINESS_FAILED', 50002, 'FAILED'],
  ['ARG_JSON_INVALID', 40001, 'REJECTED'],
  ['ARG_REJECTED', 40301, 'REJECTED'],
  ['CATALOG_DENIED', 40302, 'REJECTED'],
  ['PARAM_REQUIRED_MISSING', 42201, 'REJECTED'],
  ['PARAM_PROVENANCE_MISMATCH', 42202, 'REJECTED'],
  ['PARAM_PROVENANCE_QUERY_FIRST', 42203, 'REJECTED'],
  ['PARAM_PROVENANCE_ASK_FIRST', 42204, 'REJECTED'],
  ['PARAM_PROVENANCE_REJECTED', 42205, 'REJECTED'],
  ['FINGERPRINT_TRIP', 42901, 'REJECTED'],
  ['APPROVAL_NOT_GATED', 42245, 'REJECTED'],
  ['APPROVAL_TOOL_MISMATCH', 42246, 'REJECTED'],
  ['APPROVAL_DENIED', 42247, 'REJECTED'],
  ['FOLLOW_UP_ANSWERED', 42250, 'REJECTED'],
  ['FOLLOW_UP_UNGROUNDED', 42251, 'REJECTED'],
  ['OUTPUT_KEY_UNDECLARED', 42260, 'REJECTED'],
  ['OUTPUT_SOURCE_INVALID', 42261, 'REJECTED'],
  ['OUTPUT_SOURCE_REF_MISSING', 42262, 'REJECTED'],
  ['OUTPUT_VALUE_MISMATCH', 42263, 'REJECTED'],
  ['FINISH_OUTPUTS_MISSING', 42270, 'REJECTED'],
  ['DELEGATION_OUT_OF_BOUNDS', 42280, 'REJECTED'],
  // Issue 20 (added after the first table): builtin_evidence_read with an unknown id.
  ['EVIDENCE_NOT_FOUND', 42290, 'REJECTED'],
  // Issue 30: builtin_resource_read of a uri no tool result linked to.
  ['RESOURCE_NOT_LINKED', 42292, 'REJECTED'],
  // Issue 41: a resource builtin given a server that is not one of the node's `resources`.
  ['RESOURCE_SERVER_UNKNOWN', 42293, 'REJECTED'],
  ['APPROVAL_REQUIRED', 20201, 'DEFERRED'],
  ['WRITE_PENDING_VERIFY', 20202, 'DEFERRED'],
  ['WRITE_IN_FLIGHT', 20203, 'DEFERRED'],
  ['WRITE_NOT_EXECUTED', 20204, 'DEFERRED'],
  ['WRITE_RESULT_UNKNOWN', 50302, 'FAILED'],
  ['DELEGATE_FAILED', 50003, 'FAILED'],
  ['OUTPUT_SCHEMA_MISMATCH', 42264, 'REJECTED'],
  ['MCP_OUTPUT_SCHEMA_MISMATCH', 50204, 'FAILED'],
  ['MCP_UNAUTHORIZED', 50303, 'FAILED'],
  ['MCP_TASK_REQUIRED', 50205, 'FAILED'],
  ['GUARD_ERROR', 50010, 'FAILED'],
  ['GUARD_VERDICT_INVALID', 50011, 'FAILED'],
  ['PARAM_UNTRUSTED_REFUSED', 42281, 'REJECTED'],
  ['PARAM_UNTRUSTED_NOT_PINNED', 42282, 'REJECTED'],
  ['PARAM_UNTRUSTED_AMBIGUOUS', 20281, 'DEFERRED'],
  ['PARAM_DERIVATION_MISMATCH', 42283, 'REJECTED'],
  ['CONFIDENTIAL_VALUE_REFUSED', 42284, 'REJECTED'],
  ['REPLY_UNTRUSTED_PHRASE', 42271, 'REJECTED'],
  ['TEXT_UNTRUSTED_PHRASE', 42285, 'REJECTED'],
];

describe('RuntimeErrorCode', () => {
  it('has exactly the table: name → number → outcome, in table order', () => {
    const actual = RuntimeErrorCode.values().map((c) => [c.name, c.no, c.outcome]);
    expect(actual).toEqual(SPEC_TABLE);
  });

  it.each(SPEC_TABLE)('%s is number %i with outcome %s', (name, no, outcome) => {
    const c = RuntimeErrorCode.of(name);
    expect(c.no).toBe(no);
    expect(c.outcome).toBe(outcome);
    expect(c.name).toBe(name);
  });

  it('numbers are unique', () => {
    const numbers = RuntimeErrorCode.values().map((c) => c.no);
    expect(new Set(numbers).size).toBe(numbers.length);
  });

  it('every code has a non-empty reason template in every locale', () => {
    for (const c of RuntimeErrorCode.values()) {
      for (const locale of LOCALES) expect(c.template(locale).trim(), `${c.name} ${locale}`).not.toBe('');
    }
  });

  it('reason templates state what happened, never advice (no next-step wording)', () => {
    for (const c of RuntimeErrorCode.values()) {
      expect(c.template('zh-CN'), c.name).not.toMatch(/下一步|建议|应该|^请|[，。；]请/);
      expect(c.template('en'), c.name).not.toMatch(/\bNext:|\bplease\b|\bshould\b/i);
    }
  });

  it('is looked up by name, is the same object each time, and refuses unknown names', () => {
    expect(code('TOOL_TIMEOUT')).toBe(RuntimeErrorCode.of('TOOL_TIMEOUT'));
    expect(() => RuntimeErrorCode.of('NOPE')).toThrow(/unknown RuntimeErrorCode "NOPE"/);
  });

  it('persists as its name', () => {
    expect(JSON.stringify({ code: code('MCP_TOOL_ERROR') })).toBe('{"code":"MCP_TOOL_ERROR"}');
    expect(String(code('MCP_TOOL_ERROR'))).toBe('MCP_TOOL_ERROR');
  });

  it('fills reason placeholders per locale and leaves missing ones visible', () => {
    expect(code('TOOL_TIMEOUT').reason('zh-CN', { tool: 'slow_query', timeoutMs: 300 })).toBe(
      '工具 slow_query 调用超时（300 ms）',
    );
    expect(code('TOOL_TIMEOUT').reason('en', { tool: 'slow_query', timeoutMs: 300 })).toBe(
      'Tool slow_query timed out after 300 ms',
    );
    expect(code('PARAM_REQUIRED_MISSING').reason('zh-CN', { field: 'buyer' })).toBe('缺少必填参数 [buyer]');
    expect(
      code('TOOL_BUSINESS_FAILED').reason('zh-CN', { code: 'system.50001', message: '站点名称已存在' }),
    ).toBe('业务失败 [system.50001]：站点名称已存在');
    expect(code('TOOL_UNREACHABLE').reason('en', { tool: 'x' })).toBe('Tool x is unreachable: {detail}');
    expect(fill('{a}-{b}-{a}', { a: 1 })).toBe('1-{b}-1');
  });
});

describe('fill', () => {
  it('fills known placeholders, leaves unknown ones and braces that name nothing', () => {
    expect(fill('{a}{b} of {c}: { x } {}', { a: 1, b: 'two' })).toBe('1two of {c}: { x } {}');
    expect(fill('no placeholders', { a: 1 })).toBe('no placeholders');
    expect(fill('{a}', { a: '{b}', b: 'x' })).toBe('{b}');
    // The same template again (split once, then reused) gives the same text for other params.
    expect(fill('{a}{b} of {c}: { x } {}', { c: 0 })).toBe('{a}{b} of 0: { x } {}');
  });
});
