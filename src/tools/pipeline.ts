import { defaultBuiltins, type BuiltinRegistry } from './builtin/registry.js';
import type { CallInput, CallReport } from './call.js';
import { catalogGuard } from './catalog.js';
import { chain } from './compose.js';
import { argPolicyGuard } from './guards/arg-policy.js';
import { confidentialGuard } from './guards/confidential.js';
import { evidenceGuard } from './guards/evidence.js';
import { fingerprintGuard } from './guards/fingerprint.js';
import { invokeStep } from './guards/invoke.js';
import { logStage } from './guards/log.js';
import { paramContractGuard } from './guards/param-contract.js';
import { responseContractGuard } from './guards/response-contract.js';
import { writeGateAfter, writeGateGuard } from './approval/index.js';
import { callReport } from './report.js';
import { telemetryStage } from './guards/telemetry.js';
import { untrustedTextGuard } from './guards/untrusted-text.js';
import { checkGuards, type Guard } from './user-guards/define.js';
import { prepareGuards, userGuardsAfter, userGuardsBefore } from './user-guards/steps.js';
import type { FieldContract, ParamContract } from '../domain/flow.js';
import type { Check } from './compose.js';
import type { ParsedCall, Provenance } from './stages.js';

/** Options of `createPipeline`. */
export interface PipelineOptions {
  /** The builtin tools run by the invoke step; default: the standard builtins. */
  builtins?: BuiltinRegistry;
  /** User guards (docs/interceptors.md), asked in this order; checked here (GuardDefinitionError). */
  guards?: readonly Guard[];
}

/**
 * One call through the whole chain: resolves to the call's one immutable report (its observation and
 * what the stages learnt); rejects only for a bug or a checkpoint refused before an effect.
 */
export type Pipeline = (input: CallInput) => Promise<CallReport>;

/**
 * The path of a tool call (docs/design.md), written in the order it runs. Before the call is sent, the
 * first check that stops it ends it; each check hands what it learnt (the tool, the arguments, their
 * provenance, the approval, the count) to the steps after it. A call every check let through is
 * invoked, and what it came to goes through the after-steps in order. How the call ended becomes its
 * one report, which the watch stages (telemetry, then the log) see, stopped or sent.
 */
export function createPipeline(options: PipelineOptions = {}): Pipeline {
  const builtins = options.builtins ?? defaultBuiltins;
  const guards = prepareGuards(checkGuards(options.guards === undefined ? [] : options.guards));
  const steps = chain<CallInput>()
    .check(catalogGuard()) // 1. the tool is visible in this node
    .check(argPolicyGuard()) // 2. arguments: JSON object, tool schema, flow tightening
    .check(unlessBaseline(paramContractGuard(), enumOnly)) // 3. parameter provenance: evidence, the user's words, enum
    .check(unlessBaseline(confidentialGuard(), () => ({}))) // 3a. writes carry no confidential value
    .check(unlessBaseline(untrustedTextGuard(), () => ({}))) // 3a'. writes' free text repeats no untrusted name
    .check(userGuardsBefore(guards)) // 3b. user guards' `before`
    .check(writeGateGuard()) // 4. writes: reuse, in flight, pending verification, approval
    .check(unlessBaseline(fingerprintGuard(), () => ({ counted: false }))) // 5. the duplicate breaker
    .invoke(invokeStep(builtins)) // 6. the builtin, or the real tool through the invoker
    .after(responseContractGuard()) // 7. the tool's business status
    .after(userGuardsAfter(guards)) // 7b. user guards' `after`
    .after(writeGateAfter()) // 8. approval consumed, failed approved write, pending verification
    .after(evidenceGuard()) // 9. an executed real call becomes evidence ev_N
    .settle(callReport) // the call's one value
    .watch(telemetryStage()) // 10. the `execute_tool` span and step duration, around all of the above
    .watch(logStage()); // 11. one `TOOL invoked` line, before the span ends
  return function pipeline(input) {
    return steps.run(input);
  };
}

/** A check skipped in an eval baseline run (`services.baseline`, docs/evals.md): `instead` runs in its place. */
function unlessBaseline<Needs extends CallInput, Learns>(
  check: Check<Needs, Learns>,
  instead: Check<Needs, Learns>,
): Check<Needs, Learns> {
  return (ctx) => (ctx.services.baseline === true ? instead(ctx) : check(ctx));
}

/** Step 3 in a baseline run: the parameter contracts with their provenance sources taken away (`enum` stays). */
function enumOnly(ctx: ParsedCall): ReturnType<Check<ParsedCall, Provenance>> {
  const params = ctx.policy?.params;
  if (!params) return { provenance: {}, userProvenance: {}, matches: {} };
  const kept = Object.fromEntries(
    Object.entries(params).map(([name, contract]) => [name, withoutSource(contract)]),
  );
  return paramContractGuard()({ ...ctx, policy: { ...ctx.policy, params: kept } });
}

function withoutSource<C extends ParamContract | FieldContract>(contract: C): C {
  const copy = { ...contract };
  delete copy.source;
  if ('fields' in copy && copy.fields)
    copy.fields = Object.fromEntries(
      Object.entries(copy.fields).map(([name, field]) => [name, withoutSource(field)]),
    );
  return copy;
}
