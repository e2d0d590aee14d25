import type { Observation } from '../domain/observation.js';
import { defaultBuiltins, type BuiltinRegistry } from './builtin/registry.js';
import type { CallContext } from './call.js';
import { catalogGuard } from './catalog.js';
import { compose } from './compose.js';
import { argPolicyGuard } from './guards/arg-policy.js';
import { evidenceGuard } from './guards/evidence.js';
import { fingerprintGuard } from './guards/fingerprint.js';
import { invokeStep } from './guards/invoke.js';
import { logGuard } from './guards/log.js';
import { paramContractGuard } from './guards/param-contract.js';
import { responseContractGuard } from './guards/response-contract.js';
import { writeGateAfter, writeGateGuard } from './guards/write-gate.js';

/** Options of `createPipeline`. */
export interface PipelineOptions {
  /** The builtin tools run by the invoke step; default: the standard builtins. */
  builtins?: BuiltinRegistry;
}

/** One call through the whole chain: always resolves to the call's observation. */
export type Pipeline = (ctx: CallContext) => Promise<Observation>;

/**
 * The path of a tool call (docs/design.md), written in the order it runs. Before the call is sent, the
 * first check that produces an observation ends it; a call every check let through is invoked, and
 * its result goes through the after-steps in order. Every call, stopped or sent, is logged last.
 */
export function createPipeline(options: PipelineOptions = {}): Pipeline {
  const builtins = options.builtins ?? defaultBuiltins;
  const run = compose({
    checks: [
      catalogGuard(), // 1. the tool is visible in this node
      argPolicyGuard(), // 2. arguments: JSON object, tool schema, flow tightening
      paramContractGuard(), // 3. parameter provenance: evidence, the user's words, enum
      writeGateGuard(), // 4. writes: reuse, in flight, pending verification, approval
      fingerprintGuard(), // 5. the duplicate breaker
    ],
    invoke: invokeStep(builtins), // 6. the builtin, or the real tool through the invoker
    after: [
      responseContractGuard(), // 7. the tool's business status
      writeGateAfter(), // 8. approval consumed, failed approved write, pending verification
      evidenceGuard(), // 9. an executed real call becomes evidence ev_N
    ],
  });
  const log = logGuard();
  return async function pipeline(ctx) {
    return log(ctx, await run(ctx));
  };
}
