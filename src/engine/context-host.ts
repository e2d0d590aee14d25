import type { Flow, Limits } from '../domain/flow.js';
import { hint } from '../domain/hints.js';
import type { Locale } from '../domain/locale.js';
import type { NodeState } from '../records/run-state.js';
import type { RunStateDoc } from '../records/state-doc.js';
import { compactConversation, newContextState } from '../loop/compaction.js';
import { contextBudget, estimateFixed } from '../loop/context-budget.js';
import type { NodeExit } from '../loop/node-loop.js';
import type { ModelClient, ModelTool, TokenUsage } from '../model/model.js';
import { builtinDescriptor } from '../tools/builtin/descriptors.js';
import type { ToolDescriptor } from '../tools/tool.js';
import type { EventPayload } from '../trace/events.js';

/**
 * The node run's side of context budgets and run budgets (issue 20): the model the loop calls is
 * wrapped so that every request is compacted to the node's context budget (src/loop/compaction.ts)
 * and carries the node's output limit; the budget check runs before each model call.
 */

const EVIDENCE_READ = 'builtin_evidence_read';

/** What the wrapped model needs of its node run. */
export interface ContextModelOptions {
  nodeId: string;
  locale: Locale;
  limits: Limits;
  node: NodeState;
  emit(event: EventPayload): void;
}

/**
 * The model as the loop of one node run calls it: each request's conversation goes through
 * `compactConversation` with the node's persisted ContextState (a compaction is traced as
 * `context.compacted`), builtin_evidence_read is offered once the node run compacted, and
 * `limits.maxOutputTokens` is passed on. Without a context budget (an unknown model and no
 * `limits.contextTokens`) the conversation goes as it is.
 */
export function contextModel(model: ModelClient, options: ContextModelOptions): ModelClient {
  const { limits, node, locale } = options;
  const budget = contextBudget(limits.contextTokens, model.id);
  const reader = toModelTool(builtinDescriptor(EVIDENCE_READ, locale));
  return {
    id: model.id,
    async call(request, context) {
      let { messages, tools } = request;
      if (budget !== null) {
        const state = node.context ?? newContextState();
        const fixedTokens = estimateFixed(request.system, [...tools, reader]);
        const result = compactConversation(messages, { budget, fixedTokens, state, locale });
        node.context = result.state;
        messages = result.messages;
        if (result.compacted) {
          options.emit({
            type: 'context.compacted',
            nodeId: options.nodeId,
            round: node.rounds,
            before: result.compacted.before,
            after: result.compacted.after,
            budget,
            stubbedRounds: result.state.stubbed,
            droppedRounds: result.state.dropped,
          });
        }
        if (result.state.compactions > 0 && !tools.some((t) => t.name === EVIDENCE_READ))
          tools = [...tools, reader];
      }
      const sent = {
        ...request,
        messages,
        tools,
        ...(limits.maxOutputTokens !== undefined ? { maxOutputTokens: limits.maxOutputTokens } : {}),
      };
      const answer = await model.call(sent, context);
      if (answer.ok && budget !== null && node.context) {
        node.context = {
          ...node.context,
          last: { inputTokens: answer.usage.inputTokens, messages: request.messages.length },
        };
      }
      return answer;
    },
  };
}

function toModelTool(descriptor: ToolDescriptor): ModelTool {
  return { name: descriptor.name, description: descriptor.description, inputSchema: descriptor.inputSchema };
}

/** Adds the cost of one model call (from the flow's `prices`) to the run's; nothing without a price. */
export function recordCost(doc: RunStateDoc, flow: Flow, modelId: string, usage: TokenUsage): void {
  const price = flow.prices?.[modelId];
  if (!price) return;
  doc.cost =
    (doc.cost ?? 0) + (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}

/** What the run has spent so far: its own model calls and its child runs'. */
export interface Spent {
  tokens: number;
  cost: number;
}

/** A run budget and what its run (with its child runs) has spent against it. */
export interface BudgetLine {
  maxTokens?: number;
  maxCost?: number;
  spent: Spent;
}

/** Where the budget check reads what was spent. */
export interface BudgetSources {
  /** This run, child runs included. */
  spent(): Promise<Spent>;
  /** The budgets of the run's ancestors when it is a delegated child run (a child spends from them too). */
  ancestors(): Promise<BudgetLine[]>;
  /** True for a delegated child run (only then are ancestors read). */
  isChild: boolean;
}

/**
 * The budget check before a model call: when the run (child runs included) — or, for a child run,
 * an ancestor run — has reached its `limits.maxTokens` or `limits.maxCost`, the node fails with
 * BUDGET_EXCEEDED. It runs between calls, so no call (and no write) is ever interrupted. With `maxCost`
 * and no price for the model, the node fails before calling it (its cost could not be counted).
 */
export async function budgetExit(
  limits: Limits,
  flow: Flow,
  modelId: string,
  locale: Locale,
  sources: BudgetSources,
): Promise<NodeExit | null> {
  const own = limits.maxTokens !== undefined || limits.maxCost !== undefined;
  if (!own && !sources.isChild) return null;
  if (limits.maxCost !== undefined && !flow.prices?.[modelId]) {
    return failed(hint(locale, 'BUDGET_NO_PRICE', { model: modelId }));
  }
  const lines = sources.isChild ? await sources.ancestors() : [];
  if (own) lines.unshift({ ...limits, spent: await sources.spent() });
  for (const line of lines) {
    const reached = reachedMessage(line, locale);
    if (reached) return failed(reached);
  }
  return null;
}

function failed(message: string): NodeExit {
  return { kind: 'failed', reason: 'BUDGET_EXCEEDED', message };
}

function reachedMessage(line: BudgetLine, locale: Locale): string | null {
  const { spent } = line;
  if (line.maxTokens !== undefined && spent.tokens >= line.maxTokens) {
    return hint(locale, 'BUDGET_TOKENS_REACHED', { spent: spent.tokens, limit: line.maxTokens });
  }
  if (line.maxCost !== undefined && spent.cost >= line.maxCost) {
    return hint(locale, 'BUDGET_COST_REACHED', { spent: roundCost(spent.cost), limit: line.maxCost });
  }
  return null;
}

function roundCost(cost: number): string {
  return cost.toFixed(6).replace(/\.?0+$/, '');
}
