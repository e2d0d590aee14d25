import { code, type ReasonParams, type RuntimeErrorCodeName } from '../domain/error-codes.js';
import { hint, type HintKey } from '../domain/hints.js';
import type { Locale } from '../domain/locale.js';
import { Observation } from '../domain/observation.js';
import { InsufficientScopeError } from '@modelcontextprotocol/client';
import { causeChain, describeError, isUnauthorized, McpError, recognise } from '../mcp/errors.js';

/** The codes the invoker produces (docs/observations.md), all FAILED. */
export type InvokerErrorCode = Extract<
  RuntimeErrorCodeName,
  | 'TOOL_TIMEOUT'
  | 'TOOL_UNREACHABLE'
  | 'MCP_UNAUTHORIZED'
  | 'MCP_TASK_REQUIRED'
  | 'TOOL_IO_ERROR'
  | 'MCP_RPC_ERROR'
  | 'MCP_INVALID_PARAMS'
  | 'MCP_TOOL_ERROR'
  | 'TOOL_ERROR'
  | 'MCP_OUTPUT_SCHEMA_MISMATCH'
>;

/** The codes ToolErrors gives a next step: the invoker's plus the response contract's business failure. */
export type ToolErrorCode = InvokerErrorCode | 'TOOL_BUSINESS_FAILED';

const NEXT: Readonly<Record<ToolErrorCode, HintKey>> = {
  TOOL_TIMEOUT: 'NEXT_TIMEOUT',
  TOOL_UNREACHABLE: 'NEXT_UNREACHABLE',
  MCP_UNAUTHORIZED: 'NEXT_MCP_UNAUTHORIZED',
  MCP_TASK_REQUIRED: 'NEXT_MCP_TASK_REQUIRED',
  TOOL_IO_ERROR: 'NEXT_IO',
  MCP_RPC_ERROR: 'NEXT_RPC',
  MCP_INVALID_PARAMS: 'NEXT_INVALID_PARAMS',
  MCP_TOOL_ERROR: 'NEXT_TOOL_ERROR',
  TOOL_ERROR: 'NEXT_TOOL_ERROR',
  TOOL_BUSINESS_FAILED: 'NEXT_BUSINESS',
  MCP_OUTPUT_SCHEMA_MISMATCH: 'NEXT_MCP_OUTPUT_SCHEMA',
};

/** What `classify` made of a thrown error. */
export interface Classified {
  readonly code: InvokerErrorCode;
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

/** The hint key of the next step for a code. */
export function nextKey(codeName: ToolErrorCode): HintKey {
  return NEXT[codeName];
}

/**
 * The FAILED observation for a code: reason from the code's template in `locale` filled with
 * `reasonParams` (`tool`, `timeoutMs`, `detail`, `rpcCode`, …), next step from the code's hint.
 */
export function observe(
  codeName: ToolErrorCode,
  locale: Locale,
  reasonParams: ReasonParams,
  data?: unknown,
): Observation {
  const c = code(codeName);
  return Observation.failed(
    c,
    c.reason(locale, reasonParams),
    hint(locale, NEXT[codeName], reasonParams),
    data,
  );
}

/** Classifies a thrown error and builds its FAILED observation for tool `tool`. */
export function observeError(
  error: unknown,
  locale: Locale,
  context: { tool: string; timeoutMs?: number },
): Observation {
  const found = classify(error);
  const params: Record<string, string | number> = { tool: context.tool, detail: found.detail };
  if (context.timeoutMs !== undefined) params.timeoutMs = context.timeoutMs;
  if (found.rpcCode !== undefined) params.rpcCode = found.rpcCode;
  return observe(found.code, locale, params);
}

/**
 * Invoker-level failures (docs/observations.md): per code its next step, `observe` building the FAILED observation, and
 * `classify` mapping thrown errors to codes.
 */
export const ToolErrors = Object.freeze({
  /** Every code with a next step here, invoker codes first. */
  codes: Object.freeze(Object.keys(NEXT) as ToolErrorCode[]),
  nextKey,
  observe,
  observeError,
  classify,
});
