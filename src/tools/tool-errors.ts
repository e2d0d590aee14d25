import { code, type ReasonParams, type RuntimeErrorCodeName } from '../domain/error-codes.js';
import { hint, type HintKey } from '../domain/hints.js';
import type { Locale } from '../domain/locale.js';
import { Observation } from '../domain/observation.js';
import { classify, type Classified } from '../mcp/failure-kind.js';

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

/** Classifies a thrown error (src/mcp/failure-kind.ts) and builds its FAILED observation for tool `tool`. */
export function observeError(
  error: unknown,
  locale: Locale,
  context: { tool: string; timeoutMs?: number },
): Observation {
  return observeFailure(classify(error), locale, context);
}

/** The FAILED observation of a classified failure of a call of tool `tool`. */
export function observeFailure(
  found: Classified,
  locale: Locale,
  context: { tool: string; timeoutMs?: number },
): Observation {
  const params: Record<string, string | number> = { tool: context.tool, detail: found.detail };
  if (context.timeoutMs !== undefined) params.timeoutMs = context.timeoutMs;
  if (found.rpcCode !== undefined) params.rpcCode = found.rpcCode;
  return observe(found.code, locale, params);
}

/**
 * Invoker-level failures (docs/observations.md): per code its next step, `observe` building the FAILED observation, and
 * `classify` (src/mcp/failure-kind.ts, where the failure kinds are decided) mapping thrown errors to codes.
 */
export const ToolErrors = Object.freeze({
  /** Every code with a next step here, invoker codes first. */
  codes: Object.freeze(Object.keys(NEXT) as ToolErrorCode[]),
  nextKey,
  observe,
  observeError,
  classify,
});
