import type { Observation } from '../../domain/observation.js';
import type { CallContext, PipelineLogger } from '../call.js';

/**
 * Writes the human-readable line of one call (pipeline step 6, docs/design.md):
 * `TOOL invoked tool=… outcome=… code=…`, at WARN for FAILED and INFO otherwise.
 */
export function logToolCall(
  logger: PipelineLogger,
  tool: string,
  obs: Observation,
  extra: Readonly<Record<string, unknown>> = {},
): void {
  const fields = {
    tool,
    outcome: obs.outcome.name,
    code: obs.errorCode ?? '-',
    evidence: obs.evidenceId ?? undefined,
    ...extra,
  };
  if (obs.outcome.name === 'FAILED') logger.warn('TOOL invoked', fields);
  else logger.info('TOOL invoked', fields);
}

/**
 * The last step of every call, stopped or sent: logs its final observation. A call that suspends the
 * run is logged when the person responds (by the resolution helpers), with its final outcome.
 */
export function logCall(ctx: CallContext, obs: Observation): void {
  if (ctx.effect?.kind !== 'suspend') logToolCall(ctx.services.logger, ctx.call.tool, obs);
}
