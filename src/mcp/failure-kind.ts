import { InsufficientScopeError } from '@modelcontextprotocol/client';
import type { RuntimeErrorCodeName } from '../domain/error-codes.js';
import { causeChain, describeError, isUnauthorized, McpError, recognise } from './errors.js';

/** The failure kinds a tool call's thrown error is classified as (docs/observations.md), all FAILED. */
export type CallFailureCode = Extract<
  RuntimeErrorCodeName,
  | 'TOOL_TIMEOUT'
  | 'TOOL_UNREACHABLE'
  | 'MCP_UNAUTHORIZED'
  | 'TOOL_IO_ERROR'
  | 'MCP_RPC_ERROR'
  | 'MCP_INVALID_PARAMS'
  | 'TOOL_ERROR'
>;

/** What `classify` made of a thrown error. */
export interface Classified {
  readonly code: CallFailureCode;
  /** One line saying what went wrong (the most specific error's message). */
  readonly detail: string;
  /** The JSON-RPC error code, for MCP_RPC_ERROR and MCP_INVALID_PARAMS. */
  readonly rpcCode?: number;
}

const JSONRPC_INVALID_PARAMS = -32602;

/**
 * Classifies an error thrown while calling a tool. An error saying a person must authorize (anywhere
 * in the chain) is MCP_UNAUTHORIZED. Otherwise walks the `cause` chain (and AggregateError members)
 * outermost first: the first error that says definitely what happened decides (request timeout → TIMEOUT;
 * closed connection, refused/reset socket, exited process, failed connect → UNREACHABLE; JSON-RPC -32602 →
 * MCP_INVALID_PARAMS; other JSON-RPC error → MCP_RPC_ERROR); else any other transport/IO failure →
 * TOOL_IO_ERROR; else TOOL_ERROR.
 */
export function classify(error: unknown): Classified {
  const chain = causeChain(error);
  const unauthorized = chain.find(needsAuthorization);
  if (unauthorized !== undefined) return { code: 'MCP_UNAUTHORIZED', detail: describeError(unauthorized) };
  let io: unknown = null;
  for (const e of chain) {
    const seen = recognise(e);
    switch (seen.kind) {
      case 'timeout':
        return { code: 'TOOL_TIMEOUT', detail: describeError(e) };
      case 'unreachable':
        return { code: 'TOOL_UNREACHABLE', detail: describeError(e) };
      case 'rpc':
        return {
          code: seen.rpcCode === JSONRPC_INVALID_PARAMS ? 'MCP_INVALID_PARAMS' : 'MCP_RPC_ERROR',
          detail: describeError(e),
          rpcCode: seen.rpcCode,
        };
      case 'io':
        io ??= e;
        break;
      case 'unknown':
        break;
    }
  }
  if (io !== null) return { code: 'TOOL_IO_ERROR', detail: describeError(io) };
  return { code: 'TOOL_ERROR', detail: describeError(error) };
}

/**
 * True for an error saying a person must authorize (again): the server's 401, a 403
 * `insufficient_scope` the SDK could not step up without a person, an McpError UNAUTHORIZED.
 */
function needsAuthorization(e: unknown): boolean {
  return (
    (e instanceof McpError && e.code === 'UNAUTHORIZED') ||
    InsufficientScopeError.isInstance(e) ||
    isUnauthorized(e)
  );
}
