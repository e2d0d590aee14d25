import { code } from '../../domain/error-codes.js';
import type { ResponseContract } from '../../domain/flow.js';
import { hint } from '../../domain/hints.js';
import type { Locale } from '../../domain/locale.js';
import { Observation } from '../../domain/observation.js';
import { evaluate, ExpressionError } from '../expressions.js';
import { isScalar, scalarEquals, showValue } from '../matching.js';
import type { PipelineLogger } from '../call.js';
import type { After } from '../compose.js';
import type { ResolvedCall } from '../stages.js';
import type { ProducedCase } from '../produces.js';

/** What the response contract produces (for docs/observations.md). */
export const RESPONSE_CONTRACT_PRODUCES: readonly ProducedCase[] = [
  {
    producer: 'ResponseContract',
    case: 'the result’s `okPath` value is not in `okValues` (downstream code and message go into the reason)',
    code: 'TOOL_BUSINESS_FAILED',
    next: 'NEXT_BUSINESS',
  },
];

/**
 * Judges a SUCCESS result by the tool's response contract (pipeline step 7, docs/design.md): the value at `okPath`
 * must equal one of `okValues` (scalars compare as in matching.ts, so `"0"` equals `0`); otherwise
 * FAILED TOOL_BUSINESS_FAILED with reason `业务失败 [<code>]：<message>` (without a downstream code
 * `业务失败：<message>`), next NEXT_BUSINESS, and the response body as data. Anything else passes unchanged.
 */
export async function applyResponseContract(
  contract: ResponseContract | undefined,
  obs: Observation,
  locale: Locale,
  logger: PipelineLogger,
): Promise<Observation> {
  if (!contract || !obs.ok) return obs;
  const body = obs.data;
  const status = await safeEvaluate(contract.okPath, body, logger);
  const ok = isScalar(status) && contract.okValues.some((allowed) => scalarEquals(allowed, status));
  if (ok) return obs;
  const downstreamCode = contract.codePath ? await safeEvaluate(contract.codePath, body, logger) : undefined;
  const rawMessage = contract.messagePath
    ? await safeEvaluate(contract.messagePath, body, logger)
    : undefined;
  const message =
    rawMessage === undefined || rawMessage === null || rawMessage === ''
      ? hint(locale, 'NO_MESSAGE')
      : showValue(rawMessage, 200);
  const reason =
    downstreamCode === undefined || downstreamCode === null || downstreamCode === ''
      ? hint(locale, 'BUSINESS_FAILED_NO_CODE', { message })
      : code('TOOL_BUSINESS_FAILED').reason(locale, { code: showValue(downstreamCode, 60), message });
  return Observation.failed(code('TOOL_BUSINESS_FAILED'), reason, hint(locale, 'NEXT_BUSINESS'), body);
}

async function safeEvaluate(expression: string, body: unknown, logger: PipelineLogger): Promise<unknown> {
  try {
    return await evaluate(expression, body);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    logger.warn('TOOL response contract expression failed', { error: error.message });
    return undefined;
  }
}

/** Step 7 (ResponseContractInterceptor, after): applies the tool's response contract to an executed call. */
export function responseContractGuard(): After<ResolvedCall> {
  return async function responseContract(ctx, outcome) {
    if (!outcome.executed || outcome.lookBack?.found) return outcome;
    const { locale, services } = ctx;
    const judged = await applyResponseContract(
      ctx.policy?.response,
      outcome.observation,
      locale,
      services.logger,
    );
    return { ...outcome, observation: judged };
  };
}
