import { code } from '../../domain/error-codes.js';
import { hint } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import type { CallInput, InvokeOptions } from '../call.js';
import type { ResolvedTool } from '../stages.js';
import { limitsOf } from '../context.js';
import type { ToolDescriptor } from '../tool.js';

/** `toolTotalTimeoutMs` by default: how many `toolTimeoutMs` an MCP call reporting progress may run. */
const DEFAULT_TOTAL_TIMEOUT_FACTOR = 10;

/**
 * Sends one call to the invoker with the node's tool timeout. The invoker never throws for a tool's
 * failure; if it throws anyway (a bug), the call is FAILED TOOL_ERROR and the error is logged.
 */
export async function send(
  ctx: CallInput & Pick<ResolvedTool, 'isWrite'>,
  descriptor: ToolDescriptor,
  args: Record<string, unknown>,
  extra: Pick<InvokeOptions, 'meta' | 'elicit' | 'task'>,
): Promise<Observation> {
  const limits = limitsOf(ctx);
  const options: InvokeOptions = {
    timeoutMs: limits.toolTimeoutMs,
    maxTotalMs: limits.toolTotalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_FACTOR * limits.toolTimeoutMs,
    locale: ctx.locale,
    ...extra,
  };
  const progress = ctx.services.progress?.bind(ctx.services);
  if (progress) options.onProgress = progress;
  const sample = ctx.services.sample;
  if (sample && descriptor.kind === 'mcp' && descriptor.server !== undefined) {
    const call = { server: descriptor.server, tool: ctx.call.tool };
    options.sample = (request) => sample(request, call);
  }
  const serverLog = ctx.services.serverLog?.bind(ctx.services);
  const server = descriptor.kind === 'mcp' ? descriptor.server : undefined;
  if (serverLog && server !== undefined) options.onLog = (message) => serverLog(message, server);
  // A write, once sent, and its look-back are never abandoned: a cancel or shutdown waits for their
  // result (up to the timeout) so that it is recorded. Reads stop with the run's signal.
  if (ctx.services.signal && !ctx.isWrite) options.signal = ctx.services.signal;
  try {
    return await ctx.services.invoker.invoke(descriptor, args, options);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    ctx.services.logger.error('TOOL invoker threw', { tool: descriptor.name, error: detail });
    return Observation.failed(
      code('TOOL_ERROR'),
      code('TOOL_ERROR').reason(ctx.locale, { tool: descriptor.name, detail }),
      hint(ctx.locale, 'NEXT_TOOL_ERROR'),
    );
  }
}
