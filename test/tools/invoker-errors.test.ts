import {
  InsufficientScopeError,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { code } from '../../src/domain/error-codes.js';
import { hint } from '../../src/domain/hints.js';
import { connectError } from '../../src/mcp/errors.js';
import { classify } from '../../src/mcp/failure-kind.js';
import { observe, observeError, ToolErrors, type ToolErrorCode } from '../../src/tools/tool-errors.js';

function sysError(message: string, errno: string): Error {
  return Object.assign(new Error(message), { code: errno });
}

describe('ToolErrors next steps', () => {
  const expected: [ToolErrorCode, string][] = [
    ['TOOL_TIMEOUT', 'NEXT_TIMEOUT'],
    ['TOOL_UNREACHABLE', 'NEXT_UNREACHABLE'],
    ['MCP_UNAUTHORIZED', 'NEXT_MCP_UNAUTHORIZED'],
    ['MCP_TASK_REQUIRED', 'NEXT_MCP_TASK_REQUIRED'],
    ['TOOL_IO_ERROR', 'NEXT_IO'],
    ['MCP_RPC_ERROR', 'NEXT_RPC'],
    ['MCP_INVALID_PARAMS', 'NEXT_INVALID_PARAMS'],
    ['MCP_TOOL_ERROR', 'NEXT_TOOL_ERROR'],
    ['TOOL_ERROR', 'NEXT_TOOL_ERROR'],
    ['TOOL_BUSINESS_FAILED', 'NEXT_BUSINESS'],
    ['MCP_OUTPUT_SCHEMA_MISMATCH', 'NEXT_MCP_OUTPUT_SCHEMA'],
  ];

  it('covers every invoker-level code and the business failure', () => {
    expect([...ToolErrors.codes]).toEqual(expected.map(([c]) => c));
  });

  it.each(expected)('%s → %s; observe builds the FAILED observation in both locales', (name, key) => {
    expect(ToolErrors.nextKey(name)).toBe(key);
    const params = {
      tool: 'web_site_list',
      timeoutMs: 300,
      detail: 'boom',
      rpcCode: -32603,
      code: 'system.1',
      message: 'm',
    };
    for (const locale of ['zh-CN', 'en'] as const) {
      const obs = observe(name, locale, params, { body: 1 });
      expect(obs.outcome.name).toBe('FAILED');
      expect(obs.code).toBe(code(name));
      expect(obs.reason).toBe(code(name).reason(locale, params));
      expect(obs.next).toBe(hint(locale, key as Parameters<typeof hint>[1]));
      expect(obs.data).toEqual({ body: 1 });
    }
  });

  it('reasons per code read as the SPEC says', () => {
    expect(observe('TOOL_TIMEOUT', 'zh-CN', { tool: 'slow_query', timeoutMs: 300 }).message('zh-CN')).toBe(
      `工具 slow_query 调用超时（300 ms）。下一步：${hint('zh-CN', 'NEXT_TIMEOUT')}。`,
    );
    expect(observe('TOOL_UNREACHABLE', 'en', { tool: 'x', detail: 'connect ECONNREFUSED' }).reason).toBe(
      'Tool x is unreachable: connect ECONNREFUSED',
    );
  });
});

describe('classify', () => {
  it.each([
    ['SDK request timeout', new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'), 'TOOL_TIMEOUT'],
    ['AbortSignal.timeout', new DOMException('The operation timed out', 'TimeoutError'), 'TOOL_TIMEOUT'],
    [
      'connection closed (process exited)',
      new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'),
      'TOOL_UNREACHABLE',
    ],
    ['not connected', new SdkError(SdkErrorCode.NotConnected, 'Not connected'), 'TOOL_UNREACHABLE'],
    ['failed connect', connectError('cloud', 'cannot connect'), 'TOOL_UNREACHABLE'],
    ['ECONNREFUSED', sysError('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'), 'TOOL_UNREACHABLE'],
    ['ECONNRESET', sysError('read ECONNRESET', 'ECONNRESET'), 'TOOL_UNREACHABLE'],
    ['EPIPE', sysError('write EPIPE', 'EPIPE'), 'TOOL_UNREACHABLE'],
    ['spawn ENOENT', sysError('spawn x ENOENT', 'ENOENT'), 'TOOL_UNREACHABLE'],
    ['socket closed', sysError('other side closed', 'UND_ERR_SOCKET'), 'TOOL_UNREACHABLE'],
    [
      'HTTP 503',
      new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'HTTP 503', { status: 503 }),
      'TOOL_UNREACHABLE',
    ],
    [
      'HTTP 500',
      new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'HTTP 500', { status: 500 }),
      'TOOL_IO_ERROR',
    ],
    ['send failed', new SdkError(SdkErrorCode.SendFailed, 'send failed'), 'TOOL_IO_ERROR'],
    ['invalid result', new SdkError(SdkErrorCode.InvalidResult, 'bad result'), 'TOOL_IO_ERROR'],
    ['other system error', sysError('EIO: i/o error', 'EIO'), 'TOOL_IO_ERROR'],
    ['-32602', new ProtocolError(ProtocolErrorCode.InvalidParams, 'bad params'), 'MCP_INVALID_PARAMS'],
    ['-32603', new ProtocolError(ProtocolErrorCode.InternalError, 'internal'), 'MCP_RPC_ERROR'],
    ['-32601', new ProtocolError(ProtocolErrorCode.MethodNotFound, 'no method'), 'MCP_RPC_ERROR'],
    ['plain error', new Error('something odd'), 'TOOL_ERROR'],
    ['not an error', 'a string', 'TOOL_ERROR'],
    ['caller abort', new DOMException('This operation was aborted', 'AbortError'), 'TOOL_ERROR'],
  ] as const)('%s → %s', (_what, error, expected) => {
    expect(classify(error).code).toBe(expected);
  });

  it('looks along the cause chain: a wrapped refusal is UNREACHABLE, with the inner message as detail', () => {
    const inner = sysError('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED');
    const fetchFailed = new TypeError('fetch failed', { cause: inner });
    const framework = new Error('tool call failed', { cause: fetchFailed });
    expect(classify(framework)).toEqual({
      code: 'TOOL_UNREACHABLE',
      detail: 'connect ECONNREFUSED 127.0.0.1:9',
    });
  });

  it('a definite cause deeper down wins over a vague IO error outside', () => {
    const wrapped = new SdkError(SdkErrorCode.SendFailed, 'send failed', undefined, {
      cause: sysError('write EPIPE', 'EPIPE'),
    });
    expect(classify(wrapped).code).toBe('TOOL_UNREACHABLE');
    expect(classify(new Error('x', { cause: new ProtocolError(-32602, 'p') }))).toEqual({
      code: 'MCP_INVALID_PARAMS',
      detail: 'p',
      rpcCode: -32602,
    });
  });

  it('the outermost definite error wins (a failed connect stays UNREACHABLE even when it was a timeout)', () => {
    const connect = connectError(
      'cloud',
      'cannot connect to MCP server cloud',
      new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'),
    );
    expect(classify(connect).code).toBe('TOOL_UNREACHABLE');
  });

  it('an authorization need anywhere in the chain is MCP_UNAUTHORIZED, not an outage', () => {
    const stepUp = new InsufficientScopeError({ requiredScope: 'mcp:write' });
    expect(classify(new Error('call failed', { cause: stepUp })).code).toBe('MCP_UNAUTHORIZED');
    expect(classify(new UnauthorizedError()).code).toBe('MCP_UNAUTHORIZED');
    const http401 = new SdkHttpError(SdkErrorCode.ClientHttpAuthentication, 'HTTP 401', { status: 401 });
    expect(classify(http401).code).toBe('MCP_UNAUTHORIZED');
    // A 403 without `insufficient_scope` is not an authorization need.
    const http403 = new SdkHttpError(SdkErrorCode.ClientHttpForbidden, 'HTTP 403', { status: 403 });
    expect(classify(http403).code).toBe('TOOL_IO_ERROR');
  });

  it('looks into AggregateError members', () => {
    const aggregate = new AggregateError(
      [new Error('a'), sysError('connect ECONNREFUSED ::1:80', 'ECONNREFUSED')],
      'all failed',
    );
    expect(classify(aggregate).code).toBe('TOOL_UNREACHABLE');
  });

  it('survives cyclic causes and keeps the detail on one bounded line', () => {
    const a = new Error('first\nline');
    const b = new Error('x'.repeat(1000), { cause: a });
    (a as { cause?: unknown }).cause = b;
    const found = classify(b);
    expect(found.code).toBe('TOOL_ERROR');
    expect(found.detail.length).toBeLessThanOrEqual(300);
    expect(classify(a).detail).toBe('first line');
  });
});

describe('observeError', () => {
  it('classifies and fills tool, timeout, detail and rpc code', () => {
    const rpc = observeError(new ProtocolError(-32000, 'server busy'), 'en', {
      tool: 'web_site_get',
      timeoutMs: 1000,
    });
    expect(rpc.errorCode).toBe('MCP_RPC_ERROR');
    expect(rpc.reason).toBe('Tool web_site_get answered with a protocol error [-32000]: server busy');
    const timeout = observeError(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'), 'zh-CN', {
      tool: 'slow_query',
      timeoutMs: 250,
    });
    expect(timeout.reason).toBe('工具 slow_query 调用超时（250 ms）');
    const other = observeError(new Error('kaputt'), 'zh-CN', { tool: 't' });
    expect(other.errorCode).toBe('TOOL_ERROR');
    expect(other.reason).toBe('工具 t 执行异常：kaputt');
  });
});
