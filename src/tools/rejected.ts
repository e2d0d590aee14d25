import { AgentRuntimeError } from '../domain/agent-runtime-error.js';
import type { RuntimeErrorCode } from '../domain/error-codes.js';

/**
 * A rejection carried by an exception: one thrown by a local tool (src/tools/invoker.ts) or a builtin
 * (the invoke step) becomes a REJECTED observation with this code, reason and next step, recognised
 * along an error's `cause` chain. The builtins of this package return their rejections as
 * observations instead of throwing.
 */
export class ToolRejectedException extends AgentRuntimeError {
  override readonly name = 'ToolRejectedException';
  /** The observation code's name (`errorCode.name`), as every AgentRuntimeError's `code` is a string. */
  declare readonly code: string;

  constructor(
    /** The observation code the rejection carries (its number, outcome and texts). */
    readonly errorCode: RuntimeErrorCode,
    readonly reason: string,
    readonly next: string,
  ) {
    super(errorCode.name, reason);
    const code = errorCode;
    if (code.outcome !== 'REJECTED')
      throw new Error(`ToolRejectedException needs a REJECTED code, got ${code.name}`);
    if (!next.trim()) throw new Error('ToolRejectedException needs a next step');
  }
}

/** The first ToolRejectedException along an error's cause chain (and AggregateError members), if any. */
export function findRejection(error: unknown, depth = 0): ToolRejectedException | null {
  if (depth > 16 || error === null || error === undefined) return null;
  if (error instanceof ToolRejectedException) return error;
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const found = findRejection(inner, depth + 1);
      if (found) return found;
    }
  }
  if (typeof error === 'object' && 'cause' in error) return findRejection(error.cause, depth + 1);
  return null;
}
