import type { ReasonParams } from '../../domain/error-codes.js';
import type { OutputContract } from '../../domain/flow.js';
import type { Locale } from '../../domain/locale.js';
import type { PipelineLogger } from '../call.js';
import { clippedJson, joinRules, schemaRules } from '../schema-rules.js';

/** Characters of the value and of the schema shown to the model. */
const MAX_VALUE_CHARS = 80;
const MAX_SCHEMA_CHARS = 240;

/** Why a value breaks its output's schema: the parameters of OUTPUT_SCHEMA_MISMATCH and of its next step. */
export interface OutputSchemaMismatch {
  /** `{key, value, rules}` for the reason. */
  readonly reason: ReasonParams;
  /** `{key, schema}` for NEXT_OUTPUT_SCHEMA. */
  readonly next: ReasonParams;
}

/**
 * Checks the value builtin_output_set writes against `outputs.<key>.schema` (docs/flows.md, "Typed
 * outputs"). Null when the contract has no schema or the value satisfies it; else the failing rules
 * (at most three, each with its path inside the value) and the schema, shortened, for the next step.
 */
export function outputSchemaMismatch(
  key: string,
  contract: OutputContract,
  value: unknown,
  locale: Locale,
  logger: PipelineLogger,
): OutputSchemaMismatch | null {
  if (!contract.schema) return null;
  const rules = schemaRules(contract.schema, value, locale, logger);
  if (rules.length === 0) return null;
  return {
    reason: { key, value: clippedJson(value, MAX_VALUE_CHARS), rules: joinRules(locale, rules) },
    next: { key, schema: clippedJson(contract.schema, MAX_SCHEMA_CHARS) },
  };
}
