import type { RecoverPolicy } from '../../domain/flow.js';
import { hint } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { evaluateCondition, evaluateMap, ExpressionError } from '../expressions.js';
import type { CallInput, LookBackResult } from '../call.js';
import type { CallArgs, ResolvedTool } from '../stages.js';
import { recordEvidence } from './evidence.js';
import { send } from './send.js';
import { logToolCall } from './log.js';
import { applyResponseContract } from './response-contract.js';

/** Codes after which a write's effect is unknown: it timed out or lost its server. */
const LOST = new Set(['TOOL_TIMEOUT', 'TOOL_UNREACHABLE', 'TOOL_IO_ERROR']);

/** True when a write's observation leaves its effect unknown (look-back needed when `recover` exists). */
export function needsLookBack(obs: Observation): boolean {
  return obs.outcome.name === 'FAILED' && obs.errorCode !== null && LOST.has(obs.errorCode);
}

/**
 * The write look-back (pipeline step 6, docs/design.md): runs `recover.tool` with `recover.args` (over {args, key}) as
 * a real read through the invoker, judges it by that tool's response contract and `found` (over
 * {args, key, verify}), records it as evidence (`lookBack: true`; `confirmsFingerprint` when found)
 * and tells `services.onLookBack`. Found → SUCCESS citing the look-back's evidence and payload;
 * otherwise the write's own `failure` is returned. The look-back is never sent twice. `lookBack` is
 * absent when no look-back could be sent (unknown tool, arguments that do not evaluate).
 */
export async function lookBack(
  ctx: CallInput & CallArgs & Pick<ResolvedTool, 'isWrite'>,
  failure: Observation,
  key: string,
  recover: RecoverPolicy,
): Promise<{ observation: Observation; lookBack?: LookBackResult }> {
  const { logger } = ctx.services;
  const args = ctx.args;
  const descriptor = ctx.tools.get(recover.tool);
  if (!descriptor) {
    logger.warn('TOOL look-back tool unknown', { tool: recover.tool, write: ctx.call.tool });
    return { observation: failure };
  }
  let lookArgs: Record<string, unknown>;
  try {
    lookArgs = await evaluateMap(recover.args, { args, key });
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    logger.warn('TOOL look-back args failed', { tool: recover.tool, error: error.message });
    return { observation: failure };
  }
  const raw = await send(ctx, descriptor, lookArgs, {});
  const judged = await applyResponseContract(ctx.flow.tools[recover.tool]?.response, raw, ctx.locale, logger);
  // null: `found` could not be evaluated — the look-back then decides nothing (docs/durability.md: it failed).
  const verdict = judged.ok ? await isFound(ctx, recover.found, { args, key, verify: judged.data }) : null;
  const found = verdict === true;
  const record = recordEvidence(ctx, {
    tool: recover.tool,
    args: lookArgs,
    observation: judged,
    lookBack: true,
    ...(found ? { confirmsFingerprint: ctx.fingerprint } : {}),
  });
  const cited = judged.withEvidence(record.id);
  logToolCall(logger, recover.tool, cited, { lookBack: true });
  const looked = { evidenceId: record.id, found, decided: verdict !== null };
  await ctx.services.onLookBack?.({
    callId: ctx.call.callId,
    writeTool: ctx.call.tool,
    tool: recover.tool,
    args: lookArgs,
    observation: cited,
    found,
  });
  if (!found) return { observation: failure, lookBack: looked };
  const observation = Observation.success(
    hint(ctx.locale, 'LOOKED_BACK', { tool: ctx.call.tool }),
    judged.data,
  ).withEvidence(record.id);
  return { observation, lookBack: looked };
}

async function isFound(ctx: CallInput, expression: string, scope: unknown): Promise<boolean | null> {
  try {
    return await evaluateCondition(expression, scope);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    ctx.services.logger.warn('TOOL look-back found failed', { tool: ctx.call.tool, error: error.message });
    return null;
  }
}
