import { code } from '../../domain/error-codes.js';
import { canonicalJson } from '../../domain/fingerprint.js';
import { hint } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { limitsOf } from '../context.js';
import type { Check } from '../compose.js';
import type { CallInput } from '../call.js';
import type { Admission, CallArgs, Counting, ParsedCall } from '../stages.js';
import type { ProducedCase } from '../produces.js';

/** What the fingerprint step produces (for docs/observations.md). */
export const FINGERPRINT_PRODUCES: readonly ProducedCase[] = [
  {
    producer: 'Fingerprint',
    case: 'the same tool with the same canonical arguments reached this step more than `fingerprintRepeats` times in the node',
    code: 'FINGERPRINT_TRIP',
    next: 'NEXT_FINGERPRINT_TRIP',
  },
];

/** True when the call is the verify call of a write pending verification (exactly its tool and args). */
export function isPendingVerifyCall(ctx: Pick<ParsedCall, 'call' | 'node'> & CallArgs): boolean {
  if (ctx.node.pendingWrites.length === 0) return false;
  const args = canonicalJson(ctx.args);
  return ctx.node.pendingWrites.some(
    (p) => p.verifyTool === ctx.call.tool && canonicalJson(p.verifyArgs) === args,
  );
}

/**
 * The call is sent again to give an MCP server the person's answer to its question (docs/mcp.md,
 * "Elicitation"), as the runtime told the model to: not a repeat (a server may ask over several rounds).
 */
function answersServer(ctx: CallInput & CallArgs & Admission): boolean {
  const fp = ctx.fingerprint;
  return (
    ctx.run.followUps.some((f) => f.elicitation?.fingerprint === fp && f.elicitation.used !== true) ||
    // The call goes on to poll the MCP task it started (docs/mcp.md, "Tools that run as tasks").
    (ctx.run.tasks ?? []).some((t) => t.fingerprint === fp)
  );
}

/**
 * Step 5 (FingerprintInterceptor): counts each fingerprint per node run; the call that makes the count
 * exceed `fingerprintRepeats` (and every later one) is REJECTED FINGERPRINT_TRIP, not executed.
 * Approved writes, verify calls of a pending write and calls giving a server the person's answer are
 * not counted (pipeline step 5, docs/design.md); builtin tools are counted like any other call (the
 * seed's incident: five identical rejected output_set calls).
 */
export function fingerprintGuard(): Check<CallInput & CallArgs & Admission, Counting> {
  return function fingerprintStep(ctx) {
    const fp = ctx.fingerprint;
    if (ctx.approved || isPendingVerifyCall(ctx) || answersServer(ctx)) return { counted: false };
    const count = (ctx.node.fingerprintCounts[fp] ?? 0) + 1;
    ctx.changes.record({ kind: 'count', fingerprint: fp, count });
    const repeats = limitsOf(ctx).fingerprintRepeats;
    if (count > repeats) {
      const stop = Observation.rejected(
        code('FINGERPRINT_TRIP'),
        code('FINGERPRINT_TRIP').reason(ctx.locale, { tool: ctx.call.tool, count: count - 1 }),
        hint(ctx.locale, 'NEXT_FINGERPRINT_TRIP', { tool: ctx.call.tool }),
      );
      return { stop, learnt: { counted: true } };
    }
    return { counted: true };
  };
}
