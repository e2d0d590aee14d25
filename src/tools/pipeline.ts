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
import { writeGateGuard } from './guards/write-gate.js';

/** Options of `createPipeline`. */
export interface PipelineOptions {
  /** The builtin tools run by the invoke step; default: the standard builtins. */
  builtins?: BuiltinRegistry;
}

/** One call through the whole chain: always resolves to the call's observation. */
export type Pipeline = (ctx: CallContext) => Promise<Observation>;

/**
 * The invocation pipeline of docs/design.md: catalog → ArgPolicy → ParamContract → WriteGate → Fingerprint →
 * invoke, then ResponseContract → WriteGate.after → Evidence on the way back; the first step that
 * produces an observation ends the chain. The log step wraps everything (one `TOOL invoked` line).
 * As an onion the after-steps sit in reverse: Evidence wraps WriteGate, which wraps Fingerprint and
 * ResponseContract, so they run in the documented order after the invoke step.
 */
export function createPipeline(options: PipelineOptions = {}): Pipeline {
  const builtins = options.builtins ?? defaultBuiltins;
  return compose(
    [
      logGuard(),
      catalogGuard(),
      argPolicyGuard(),
      paramContractGuard(),
      evidenceGuard(),
      writeGateGuard(),
      fingerprintGuard(),
      responseContractGuard(),
    ],
    invokeStep(builtins),
  );
}
