import type { Store } from '../store/store.js';

/** An ancestor run's budget (`limits.maxTokens`, `limits.maxCost`) and what its whole tree has spent. */
export interface AncestorBudget {
  maxTokens?: number;
  maxCost?: number;
  spent: { tokens: number; cost: number };
}

/**
 * The run budgets of a run's ancestors, from `parentRunId` up (a delegated child run spends from its
 * parents' budgets too): for each ancestor whose flow sets `limits.maxTokens` or `limits.maxCost`, those
 * limits and what that ancestor's whole tree has committed so far.
 */
export async function ancestorBudgets(store: Store, parentRunId: string | null): Promise<AncestorBudget[]> {
  const out: AncestorBudget[] = [];
  let parentId = parentRunId;
  for (let depth = 0; parentId && depth < MAX_ANCESTORS; depth += 1) {
    const parent = await store.getRun(parentId);
    if (!parent) break;
    const limits = parent.flow.limits ?? {};
    if (limits.maxTokens !== undefined || limits.maxCost !== undefined) {
      const below = await childrenSpent(store, parent.runId);
      const tokens = parent.usage.inputTokens + parent.usage.outputTokens + below.tokens;
      const cost = (parent.state.cost ?? 0) + below.cost;
      out.push({ ...pickLimits(limits), spent: { tokens, cost } });
    }
    parentId = parent.parentRunId;
  }
  return out;
}

/** How far up a chain of delegations budgets are looked for (delegation chains are short). */
const MAX_ANCESTORS = 16;

function pickLimits(limits: { maxTokens?: number; maxCost?: number }): {
  maxTokens?: number;
  maxCost?: number;
} {
  return {
    ...(limits.maxTokens !== undefined ? { maxTokens: limits.maxTokens } : {}),
    ...(limits.maxCost !== undefined ? { maxCost: limits.maxCost } : {}),
  };
}

/** What the child runs of a run (and theirs) have spent, as committed. */
export async function childrenSpent(store: Store, runId: string): Promise<{ tokens: number; cost: number }> {
  let tokens = 0;
  let cost = 0;
  for (const child of await store.listRuns({ parentRunId: runId })) {
    const below = await childrenSpent(store, child.runId);
    tokens += child.usage.inputTokens + child.usage.outputTokens + below.tokens;
    cost += (child.state.cost ?? 0) + below.cost;
  }
  return { tokens, cost };
}
