import { code } from '../../domain/error-codes.js';
import type { ParamContract } from '../../domain/flow.js';
import { hint, list } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { userTexts, type EvidenceRecord } from '../../domain/run-state.js';
import { evaluate, ExpressionError } from '../expressions.js';
import {
  isScalar,
  leavesUnderKey,
  occursIn,
  saidByUser,
  scalarLeaves,
  showValue,
  type Scalar,
} from '../matching.js';
import type { Check } from '../compose.js';
import type { ParsedCall, Provenance } from '../stages.js';
import type { ProducedCase } from '../produces.js';

/** What the param contract produces (for docs/observations.md). */
export const PARAM_CONTRACT_PRODUCES: readonly ProducedCase[] = [
  {
    producer: 'ParamContract',
    case: '`enum`: the value is not one of the allowed values',
    code: 'PARAM_PROVENANCE_REJECTED',
    next: 'NEXT_ENUM',
  },
  {
    producer: 'ParamContract',
    case: '`source: evidence`: no successful call of any `from` tool yet',
    code: 'PARAM_PROVENANCE_QUERY_FIRST',
    next: 'NEXT_QUERY_FIRST',
  },
  {
    producer: 'ParamContract',
    case: '`source: evidence`: the value is in none of their results (or of what `path` selects)',
    code: 'PARAM_PROVENANCE_MISMATCH',
    next: 'NEXT_PROVENANCE_MISMATCH',
  },
  {
    producer: 'ParamContract',
    case: '`source: user`: the user has not said the value (run input, follow-up answers)',
    code: 'PARAM_PROVENANCE_ASK_FIRST',
    next: 'NEXT_ASK_FIRST',
  },
];

const SAMPLE_SIZE = 5;

/**
 * Step 3 (ParamContractInterceptor): checks each present argument against its `params` contract:
 * `enum` (exact JSON equality), `source: evidence` (the value occurs in a SUCCESS evidence of a `from`
 * tool, or in what `path` selects from it; newest evidence first), `source: user` (the user said it).
 * Learns `provenance`, the evidence id each evidence-sourced value was found in, and
 * `userProvenance`, the user's words each user-sourced value was found in.
 */
export function paramContractGuard(): Check<ParsedCall, Provenance> {
  return async function paramContract(ctx) {
    const found = { provenance: {}, userProvenance: {} };
    const args = ctx.args;
    for (const [field, contract] of Object.entries(ctx.policy?.params ?? {})) {
      if (!Object.hasOwn(args, field) || args[field] === undefined) continue;
      const rejection = await checkParam(ctx, found, field, contract, args[field]);
      if (rejection) return { stop: rejection };
    }
    return found;
  };
}

/** What the param contract fills in as it checks. */
type Found = { provenance: Record<string, string>; userProvenance: Record<string, string> };

async function checkParam(
  ctx: ParsedCall,
  found: Found,
  field: string,
  contract: ParamContract,
  value: unknown,
): Promise<Observation | null> {
  const { locale } = ctx;
  if (contract.enum && !contract.enum.some((allowed) => allowed === value)) {
    return Observation.rejected(
      code('PARAM_PROVENANCE_REJECTED'),
      code('PARAM_PROVENANCE_REJECTED').reason(locale, { field, value: showValue(value) }),
      hint(locale, 'NEXT_ENUM', {
        values: list(
          locale,
          contract.enum.map((v) => showValue(v)),
        ),
      }),
    );
  }
  if (contract.source === 'evidence') return checkEvidence(ctx, found, field, contract, value);
  if (contract.source === 'user') {
    const texts = userTexts(ctx.run);
    if (!saidByUser(value, texts)) {
      return Observation.rejected(
        code('PARAM_PROVENANCE_ASK_FIRST'),
        code('PARAM_PROVENANCE_ASK_FIRST').reason(locale, { field, value: showValue(value) }),
        hint(locale, 'NEXT_ASK_FIRST', { field }),
      );
    }
    found.userProvenance[field] = userWords(value, texts);
  }
  return null;
}

/** The user's text that says `value`; for a structured value said across several texts, those texts joined. */
function userWords(value: unknown, texts: readonly string[]): string {
  const one = texts.find((t) => saidByUser(value, [t]));
  if (one !== undefined) return one;
  const leaves = scalarLeaves(value);
  return texts.filter((t) => leaves.some((leaf) => saidByUser(leaf, [t]))).join('\n');
}

async function checkEvidence(
  ctx: ParsedCall,
  found: Found,
  field: string,
  contract: ParamContract,
  value: unknown,
): Promise<Observation | null> {
  const { locale } = ctx;
  const from = contract.from ?? [];
  const sources = ctx.run.evidence
    .filter((e) => e.outcome === 'SUCCESS' && (from.length === 0 || from.includes(e.tool)))
    .reverse();
  const tools = from.length > 0 ? list(locale, from) : hint(locale, 'ANY_TOOL');
  if (sources.length === 0) {
    return Observation.rejected(
      code('PARAM_PROVENANCE_QUERY_FIRST'),
      code('PARAM_PROVENANCE_QUERY_FIRST').reason(locale, { field, tools }),
      hint(locale, 'NEXT_QUERY_FIRST', { tools, tool: ctx.call.tool }),
    );
  }
  for (const evidence of sources) {
    const selection = await select(ctx, contract.path, evidence);
    if (occursIn(value, selection)) {
      found.provenance[field] = evidence.id;
      return null;
    }
  }
  const latest = sources[0] as EvidenceRecord;
  const samples = sample(await select(ctx, contract.path, latest), contract.path ? null : field);
  // With no value to offer, the next step must still be actionable: ask the user.
  const next =
    samples.length > 0
      ? hint(locale, 'NEXT_PROVENANCE_MISMATCH', { tools, values: list(locale, samples) })
      : hint(locale, 'NEXT_ASK_FIRST', { field });
  return Observation.rejected(
    code('PARAM_PROVENANCE_MISMATCH'),
    code('PARAM_PROVENANCE_MISMATCH').reason(locale, { field, value: showValue(value), tools }),
    next,
  );
}

/** The part of an evidence payload the contract allows values from: all of it, or what `path` selects. */
async function select(ctx: ParsedCall, path: string | undefined, evidence: EvidenceRecord): Promise<unknown> {
  if (!path) return evidence.payload;
  try {
    return await evaluate(path, evidence.payload);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    ctx.services.logger.warn('TOOL param path failed', {
      tool: ctx.call.tool,
      evidence: evidence.id,
      error: error.message,
    });
    return undefined;
  }
}

/** A few valid values to show: the selection's leaves, else leaves under a key named like the field. */
function sample(selection: unknown, field: string | null): string[] {
  let leaves: Scalar[] = field ? leavesUnderKey(selection, field) : scalarLeaves(selection);
  if (leaves.length === 0)
    leaves = scalarLeaves(selection).filter((l) => typeof l === 'string' || typeof l === 'number');
  const shown = leaves.filter(isScalar).map((l) => showValue(l, 40));
  return [...new Set(shown)].slice(0, SAMPLE_SIZE);
}
