/** Token usage of a model call (`model.response.usage`), or summed over several. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** Zero usage. */
export function noUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
}

/** Adds `usage` into `into` (mutates `into`). */
export function addUsage(into: Usage, usage: Usage): void {
  into.inputTokens += usage.inputTokens;
  into.outputTokens += usage.outputTokens;
  into.totalTokens += usage.totalTokens;
}

/** A usage from an event field; a missing or non-numeric count is 0. */
export function usageOf(value: unknown): Usage {
  const u = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return { inputTokens: n(u.inputTokens), outputTokens: n(u.outputTokens), totalTokens: n(u.totalTokens) };
}
