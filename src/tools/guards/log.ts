import type { Observation } from '../../domain/observation.js';
import type { CallInput, CallReport, CallWatch, PipelineLogger } from '../call.js';

/**
 * Writes the human-readable line of one call (pipeline step 11, docs/design.md):
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
 * The log stage, told of every call once it settled, stopped or sent: logs its final observation. A call that suspends the
 * run is logged when the person responds (by the resolution helpers), with its final outcome. A call
 * the run's stop cut or overtook (shutdown, cancel) is not recorded, bar a write that was sent: it is
 * logged as `TOOL interrupted tool=… reason="interrupted by shutdown"`, not as the observation (a
 * timeout, an evidence id) that was never stored.
 */
export function logStage(): CallWatch {
  return function log(input) {
    return { ended: (report) => logCall(input, report), threw: () => undefined };
  };
}

function logCall(ctx: CallInput, report: CallReport): void {
  if (report.effect?.kind === 'suspend') return;
  const signal = ctx.services.signal;
  if (signal?.aborted && !(report.isWrite === true && report.executed)) {
    ctx.services.logger.info('TOOL interrupted', {
      tool: ctx.call.tool,
      reason: stopReason(signal.reason),
      recorded: false,
    });
    return;
  }
  logToolCall(ctx.services.logger, ctx.call.tool, report.observation);
}

/** What stopped the run, as its signal says (`interrupted by shutdown`, `interrupted by cancel`). */
function stopReason(reason: unknown): string {
  return reason instanceof Error && reason.message.startsWith('interrupted by ')
    ? reason.message
    : 'interrupted: the run was told to stop';
}
