import { code } from '../../domain/error-codes.js';
import { fingerprint } from '../../domain/fingerprint.js';
import { hint, list } from '../../domain/hints.js';
import type { Locale } from '../../domain/locale.js';
import { Observation } from '../../domain/observation.js';
import type { Check } from '../compose.js';
import type { CallArgs, ResolvedCall } from '../stages.js';
import type { ProducedCase } from '../produces.js';
import { checkSchema, type SchemaViolation } from './schema-validation.js';

/** What the arg policy produces (for docs/observations.md). */
export const ARG_POLICY_PRODUCES: readonly ProducedCase[] = [
  {
    producer: 'ArgPolicy',
    case: 'arguments are not valid JSON, or not a JSON object',
    code: 'ARG_JSON_INVALID',
    next: 'NEXT_ARG_JSON_INVALID',
  },
  {
    producer: 'ArgPolicy',
    case: 'a field the tool schema or the flow (`required: true`) requires is missing',
    code: 'PARAM_REQUIRED_MISSING',
    next: 'NEXT_REQUIRED_MISSING',
  },
  {
    producer: 'ArgPolicy',
    case: 'another violation of the tool schema or of a flow `schema:` tightening',
    code: 'ARG_REJECTED',
    next: 'NEXT_ARG_REJECTED',
  },
];

/** The arguments parsed from the model's raw string, or why they are not a JSON object. */
export type ParsedArgs = { ok: true; args: Record<string, unknown> } | { ok: false; detail: string };

/**
 * Parses raw tool-call arguments. An empty (or blank) string means no arguments (`{}`): several
 * OpenAI-compatible providers send it for tools without parameters.
 */
export function parseArgs(raw: string, locale: Locale): ParsedArgs {
  if (raw.trim() === '') return { ok: true, args: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw) as unknown;
  } catch (error) {
    return {
      ok: false,
      detail: hint(locale, 'DETAIL_JSON_PARSE', {
        error: error instanceof Error ? error.message : String(error),
      }),
    };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    return { ok: false, detail: hint(locale, 'DETAIL_NOT_OBJECT', { type }) };
  }
  return { ok: true, args: value as Record<string, unknown> };
}

/**
 * Step 2 (ArgPolicyInterceptor): JSON object check, then missing required fields (tool schema
 * `required`, flow `required: true`) → PARAM_REQUIRED_MISSING listing every missing field, then any
 * other violation of the tool schema or the flow's per-param `schema:` → ARG_REJECTED naming the
 * field and the rule. Learns `args` and `fingerprint`.
 */
export function argPolicyGuard(): Check<ResolvedCall, CallArgs> {
  return function argPolicy(ctx) {
    const tool = ctx.call.tool;
    const parsed = parseArgs(ctx.call.rawArgs, ctx.locale);
    if (!parsed.ok) {
      const stop = Observation.rejected(
        code('ARG_JSON_INVALID'),
        code('ARG_JSON_INVALID').reason(ctx.locale, { detail: parsed.detail }),
        hint(ctx.locale, 'NEXT_ARG_JSON_INVALID', { tool }),
      );
      return { stop };
    }
    const learnt = { args: parsed.args, fingerprint: fingerprint(tool, parsed.args) };
    const { missing, violations } = validateArgs(ctx, parsed.args);
    if (missing.length > 0) {
      const stop = Observation.rejected(
        code('PARAM_REQUIRED_MISSING'),
        code('PARAM_REQUIRED_MISSING').reason(ctx.locale, { field: list(ctx.locale, missing) }),
        hint(ctx.locale, 'NEXT_REQUIRED_MISSING'),
      );
      return { stop, learnt };
    }
    const first = violations[0];
    if (first) {
      const stop = Observation.rejected(
        code('ARG_REJECTED'),
        code('ARG_REJECTED').reason(ctx.locale, { field: first.field, rule: first.rule }),
        hint(ctx.locale, 'NEXT_ARG_REJECTED', { field: first.field, tool }),
      );
      return { stop, learnt };
    }
    return learnt;
  };
}

function validateArgs(
  ctx: ResolvedCall,
  args: Record<string, unknown>,
): { missing: string[]; violations: SchemaViolation[] } {
  const logger = ctx.services.logger;
  const own = checkSchema(ctx.descriptor.inputSchema, args, ctx.locale, logger);
  const missing = [...own.missing];
  const violations = [...own.violations];
  for (const [name, contract] of Object.entries(ctx.policy?.params ?? {})) {
    const present = Object.hasOwn(args, name) && args[name] !== undefined;
    if (contract.required === true && !present && !missing.includes(name)) missing.push(name);
    if (present && contract.schema) {
      const tightened = checkSchema(contract.schema, args[name], ctx.locale, logger, name);
      missing.push(...tightened.missing.filter((m) => !missing.includes(m)));
      violations.push(...tightened.violations);
    }
  }
  return { missing, violations };
}
