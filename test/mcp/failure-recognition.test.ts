import {
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import {
  catalogFailureReason,
  causeChain,
  connectError,
  describeError,
  errnoCode,
  isConnectionLoss,
  isIncompatible,
  isSessionForgotten,
  isStreamableRefusal,
  isUnauthorized,
  McpError,
  recognise,
  unauthorizedServer,
} from '../../src/mcp/errors.js';

/**
 * How the MCP layer reads a thrown error (src/mcp/errors.ts): which kind of transport failure one error
 * is, the chain of its causes, and the questions asked of that chain (lost connection, 401, a legacy
 * server, a forgotten session, an incompatible revision).
 */

function http(status: number, message = `HTTP ${status}`): SdkHttpError {
  return new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, message, { status });
}

function errno(code: unknown, message = 'socket'): Error {
  return Object.assign(new Error(message), { code });
}

describe('errnoCode', () => {
  it('the string code of an error, else null', () => {
    expect(errnoCode(errno('ECONNREFUSED'))).toBe('ECONNREFUSED');
    expect(errnoCode({ code: 'EPIPE' })).toBe('EPIPE');
    expect(errnoCode(errno(-32000))).toBeNull();
    expect(errnoCode(new Error('plain'))).toBeNull();
    expect(errnoCode(null)).toBeNull();
    expect(errnoCode('ECONNREFUSED')).toBeNull();
  });
});

describe('recognise', () => {
  it.each([
    'ECONNREFUSED',
    'ECONNRESET',
    'EPIPE',
    'ENOTFOUND',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'EAI_AGAIN',
    'ETIMEDOUT',
    'ENOENT',
    'EACCES',
    'UND_ERR_SOCKET',
    'UND_ERR_CONNECT_TIMEOUT',
    'UND_ERR_CLOSED',
  ])('%s means unreachable', (code) => {
    expect(recognise(errno(code))).toEqual({ kind: 'unreachable' });
  });

  it('other system, undici and stream codes mean an I/O failure', () => {
    for (const code of ['EMFILE', 'UND_ERR_BODY_TIMEOUT', 'ERR_STREAM_PREMATURE_CLOSE'])
      expect(recognise(errno(code)), code).toEqual({ kind: 'io' });
  });

  it('a code of another shape says nothing', () => {
    for (const code of ['ERR_INVALID_ARG_TYPE', 'econnrefused', 'E1', 'NOPE'])
      expect(recognise(errno(code)), code).toEqual({ kind: 'unknown' });
  });

  it('a TimeoutError (AbortSignal.timeout) is a timeout', () => {
    const error = new Error('The operation was aborted due to timeout');
    error.name = 'TimeoutError';
    expect(recognise(error)).toEqual({ kind: 'timeout' });
  });

  it('the SDK’s own errors: timeout, closed and not connected, else I/O', () => {
    expect(recognise(new SdkError(SdkErrorCode.RequestTimeout, 'timed out'))).toEqual({ kind: 'timeout' });
    expect(recognise(new SdkError(SdkErrorCode.ConnectionClosed, 'closed'))).toEqual({ kind: 'unreachable' });
    expect(recognise(new SdkError(SdkErrorCode.NotConnected, 'no'))).toEqual({ kind: 'unreachable' });
    expect(recognise(new SdkError(SdkErrorCode.SendFailed, 'send'))).toEqual({ kind: 'io' });
  });

  it('HTTP 404, 502, 503 and 504 mean the server is not there; other statuses are I/O', () => {
    for (const status of [404, 502, 503, 504])
      expect(recognise(http(status)), String(status)).toEqual({ kind: 'unreachable' });
    for (const status of [400, 401, 403, 500])
      expect(recognise(http(status)), String(status)).toEqual({ kind: 'io' });
  });

  it('a JSON-RPC error from the server keeps its code', () => {
    expect(recognise(new ProtocolError(-32602, 'Invalid params'))).toEqual({ kind: 'rpc', rpcCode: -32602 });
  });

  it('McpError: CONNECT and UNAUTHORIZED are unreachable, INCOMPATIBLE is I/O, the rest unknown', () => {
    expect(recognise(new McpError('UNAUTHORIZED', '401', { serverId: 'wiki' }))).toEqual({
      kind: 'unreachable',
    });
    expect(recognise(new McpError('INCOMPATIBLE', 'old'))).toEqual({ kind: 'io' });
    expect(recognise(new McpError('CATALOG', 'names'))).toEqual({ kind: 'unknown' });
  });

  it('the SDK’s "Not connected" and fetch’s "fetch failed"', () => {
    expect(recognise(new Error('Not connected'))).toEqual({ kind: 'unreachable' });
    expect(recognise(new TypeError('fetch failed'))).toEqual({ kind: 'io' });
    // The same message on another kind of error is not fetch's.
    expect(recognise(new Error('fetch failed'))).toEqual({ kind: 'unknown' });
  });

  it('what is not an Error is unknown, even with a code', () => {
    expect(recognise({ code: 'ECONNREFUSED', message: 'x' })).toEqual({ kind: 'unknown' });
    expect(recognise('ECONNREFUSED')).toEqual({ kind: 'unknown' });
    expect(recognise(undefined)).toEqual({ kind: 'unknown' });
  });
});

describe('causeChain', () => {
  it('the error, then its causes, outermost first', () => {
    const root = errno('ECONNREFUSED');
    const middle = new Error('connect', { cause: root });
    const outer = new Error('call', { cause: middle });
    expect(causeChain(outer)).toEqual([outer, middle, root]);
  });

  it('an AggregateError’s members come before its own cause', () => {
    const a = new Error('a');
    const b = new Error('b');
    const cause = new Error('cause');
    const aggregate = new AggregateError([a, b], 'all', { cause });
    expect(causeChain(aggregate)).toEqual([aggregate, a, b, cause]);
  });

  it('stops at a cycle, and at the depth limit', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(causeChain(a)).toEqual([a, b]);
    let deep: Error = new Error('0');
    for (let i = 1; i <= 30; i += 1) deep = new Error(String(i), { cause: deep });
    expect(causeChain(deep)).toHaveLength(17);
    expect(causeChain(deep, 2).map((e) => (e as Error).message)).toEqual(['30', '29', '28']);
  });

  it('keeps non-Error causes, and has nothing for null or undefined', () => {
    expect(causeChain(new Error('x', { cause: 'text' })).at(-1)).toBe('text');
    expect(causeChain(null)).toEqual([]);
    expect(causeChain(undefined)).toEqual([]);
  });
});

describe('isConnectionLoss', () => {
  it('true when any error of the chain means unreachable', () => {
    expect(isConnectionLoss(new Error('call', { cause: errno('ECONNRESET') }))).toBe(true);
    expect(isConnectionLoss(new AggregateError([new Error('x'), http(503)]))).toBe(true);
    expect(isConnectionLoss(connectError('wiki', 'cannot connect'))).toBe(true);
  });

  it('false for a timeout, a JSON-RPC error or I/O', () => {
    expect(isConnectionLoss(new SdkError(SdkErrorCode.RequestTimeout, 't'))).toBe(false);
    expect(isConnectionLoss(new ProtocolError(-32603, 'internal'))).toBe(false);
    expect(isConnectionLoss(new Error('x', { cause: http(500) }))).toBe(false);
  });
});

describe('describeError', () => {
  it('the message on one line, whitespace folded', () => {
    expect(describeError(new Error('  first line\n\tsecond   line  '))).toBe('first line second line');
  });

  it('the name when the message is empty; String() of a non-error', () => {
    expect(describeError(new TypeError(''))).toBe('TypeError');
    expect(describeError('plain text')).toBe('plain text');
    expect(describeError(42)).toBe('42');
    expect(describeError(undefined)).toBe('undefined');
  });

  it('cut to `max` characters with an ellipsis, exactly at the bound', () => {
    expect(describeError(new Error('x'.repeat(300)))).toBe('x'.repeat(300));
    const cut = describeError(new Error('x'.repeat(301)));
    expect(cut).toBe(`${'x'.repeat(299)}…`);
    expect(cut).toHaveLength(300);
    expect(describeError('abcdef', 4)).toBe('abc…');
  });
});

describe('catalogFailureReason', () => {
  it('TOOLS_UNAUTHORIZED for a 401 or an McpError UNAUTHORIZED anywhere in the chain', () => {
    expect(catalogFailureReason(new Error('list', { cause: http(401) }))).toBe('TOOLS_UNAUTHORIZED');
    expect(catalogFailureReason(new UnauthorizedError('no token'))).toBe('TOOLS_UNAUTHORIZED');
    expect(catalogFailureReason(new Error('x', { cause: new McpError('UNAUTHORIZED', 'u') }))).toBe(
      'TOOLS_UNAUTHORIZED',
    );
  });

  it('TOOLS_INCOMPATIBLE for an McpError INCOMPATIBLE, else TOOLS_UNAVAILABLE', () => {
    expect(catalogFailureReason(new Error('x', { cause: new McpError('INCOMPATIBLE', 'old') }))).toBe(
      'TOOLS_INCOMPATIBLE',
    );
    expect(catalogFailureReason(connectError('wiki', 'down'))).toBe('TOOLS_UNAVAILABLE');
    expect(catalogFailureReason(http(403))).toBe('TOOLS_UNAVAILABLE');
    expect(catalogFailureReason('weird')).toBe('TOOLS_UNAVAILABLE');
  });

  it('a 401 outranks an incompatible revision further down', () => {
    const error = new McpError('INCOMPATIBLE', 'old', { cause: http(401) });
    expect(catalogFailureReason(error)).toBe('TOOLS_UNAUTHORIZED');
  });
});

describe('questions about the cause chain', () => {
  it('isUnauthorized: HTTP 401 or the SDK’s UnauthorizedError, not 403', () => {
    expect(isUnauthorized(http(401))).toBe(true);
    expect(isUnauthorized(new Error('x', { cause: new UnauthorizedError() }))).toBe(true);
    expect(isUnauthorized(http(403))).toBe(false);
    expect(isUnauthorized(new McpError('UNAUTHORIZED', 'u'))).toBe(false);
  });

  it('isStreamableRefusal: 400, 404 or 405 to the first POST', () => {
    for (const status of [400, 404, 405])
      expect(isStreamableRefusal(http(status)), String(status)).toBe(true);
    for (const status of [401, 406, 500])
      expect(isStreamableRefusal(http(status)), String(status)).toBe(false);
    expect(isStreamableRefusal(errno('ECONNREFUSED'))).toBe(false);
  });

  it('isSessionForgotten: 404, or 400 that names the session (any case)', () => {
    expect(isSessionForgotten(http(404))).toBe(true);
    expect(isSessionForgotten(http(400, 'Bad Request: No valid Session ID provided'))).toBe(true);
    expect(isSessionForgotten(http(400, 'Bad Request: invalid JSON'))).toBe(false);
    expect(isSessionForgotten(http(410, 'session gone'))).toBe(false);
  });

  it('isIncompatible: an unsupported protocol version, in any error of the chain', () => {
    const refused = new Error('Server’s protocol version is not supported: 2023-01-01');
    expect(isIncompatible(new Error('connect', { cause: refused }))).toBe(true);
    expect(isIncompatible(new Error('PROTOCOL VERSION IS NOT SUPPORTED'))).toBe(true);
    expect(isIncompatible(new Error('version mismatch'))).toBe(false);
    expect(isIncompatible('protocol version is not supported')).toBe(false);
  });

  it('unauthorizedServer: the first McpError UNAUTHORIZED that names its server', () => {
    const inner = new McpError('UNAUTHORIZED', 'inner', { serverId: 'wiki' });
    const unnamed = new McpError('UNAUTHORIZED', 'outer', { cause: inner });
    expect(unauthorizedServer(unnamed)).toBe('wiki');
    expect(unauthorizedServer(connectError('shop', 'down'))).toBeUndefined();
    expect(unauthorizedServer(http(401))).toBeUndefined();
  });
});

describe('McpError', () => {
  it('keeps the variable it names, no server, and empty lists for a catalog', () => {
    const error = new McpError('MISSING_ENV', 'x', { variable: 'TOKEN' });
    expect(error.variable).toBe('TOKEN');
    expect(error.serverId).toBeUndefined();
    expect(error.conflicts).toEqual([]);
    expect(error.unknownAliases).toEqual([]);
  });

  it('connectError keeps the cause only when there is one', () => {
    const root = errno('ECONNREFUSED');
    expect(connectError('wiki', 'down', root).cause).toBe(root);
    expect('cause' in connectError('wiki', 'down')).toBe(false);
  });
});
