import type { RuntimeErrorCode } from '../domain/error-codes.js';

/**
 * A rejection carried by an exception: the invoke step turns one thrown by a builtin into a REJECTED
 * observation with this code, reason and next step, recognised along an error's `cause` chain. Kept
 * because it is public API; the builtins of this package return their rejections as observations
 * instead of throwing.
 */
export class ToolRejectedException extends Error {
  override readonly name = 'ToolRejectedException';

  constructor(
    readonly code: RuntimeErrorCode,
    readonly reason: string,
    readonly next: string,
  ) {
    super(reason);
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
