import { code } from '../../domain/error-codes.js';
import { hint } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { confidentialPaths } from '../../domain/tool.js';
import { userTexts } from '../../records/run-state.js';
import { evaluate, ExpressionError } from '../expressions.js';
import { normalise, scalarLeaves } from '../matching.js';
import { numbersIn, numericValue, sameNumber } from '../numbers.js';
import type { Check } from '../compose.js';
import type { ParsedCall } from '../stages.js';

/**
 * Confidential values (docs/flows.md, "Confidential values"): what the confidential parts of earlier
 * results hold (`trust: { confidential: [...] }`) may not leave in a write's arguments — as a whole
 * argument or inside its text — unless the user's own words state it.
 */

/** A confidential value of the run, with the tool whose result held it. */
export interface ConfidentialValue {
  readonly value: string | number;
  readonly tool: string;
}

/** Values shorter than this (normalised) are matched only as whole words, never inside other words. */
const MIN_INSIDE_LENGTH = 4;
/** A value holding a digit and at least this many characters is compared with spaces and dashes taken out. */
const MIN_COMPACT_LENGTH = 6;

/** `4237-4252 7456` → `423742527456`: white space and dashes taken out, lower case. */
function compact(text: string): string {
  return normalise(text).replace(/[-\u2010-\u2015]/g, '');
}

/**
 * True when `text` carries `value`: numbers compare as numbers (`1,250.00` carries `1250`); a value
 * holding a digit (a card, account or passport number, an IBAN) is found with white space and dashes
 * ignored on both sides (`4237 4252 7456 2574` carries `4237-4252-7456-2574`); any other value is
 * found case-insensitively, white space ignored — inside a word when it has 4 or more characters,
 * else only as a whole word.
 */
export function carries(text: string, value: string | number): boolean {
  const written = String(value).normalize('NFKC').trim();
  if (written === '') return false;
  const number = numericValue(value);
  if (number !== null && numbersIn(text.normalize('NFKC')).some((n) => sameNumber(n.value, number)))
    return true;
  const needle = compact(written);
  if (/\d/.test(written) && needle.length >= MIN_COMPACT_LENGTH) return compact(text).includes(needle);
  if (number !== null) return false;
  if (normalise(written).length >= MIN_INSIDE_LENGTH) return normalise(text).includes(normalise(written));
  const words = text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u);
  return words.includes(written.toLowerCase());
}

/** The confidential values the run's successful results hold, each once, in the order they were read. */
export async function confidentialValues(ctx: ParsedCall): Promise<ConfidentialValue[]> {
  const seen = new Set<string>();
  const out: ConfidentialValue[] = [];
  for (const evidence of ctx.run.evidence) {
    if (evidence.outcome !== 'SUCCESS') continue;
    for (const path of confidentialPaths(ctx.flow.tools[evidence.tool])) {
      for (const leaf of scalarLeaves(await select(ctx, path, evidence.payload, evidence.tool))) {
        if (typeof leaf !== 'string' && typeof leaf !== 'number') continue;
        if (typeof leaf === 'string' && leaf.trim() === '') continue;
        const key = `${typeof leaf}:${String(leaf)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ value: leaf, tool: evidence.tool });
      }
    }
  }
  return out;
}

async function select(ctx: ParsedCall, path: string, payload: unknown, tool: string): Promise<unknown> {
  try {
    return await evaluate(path, payload);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    ctx.services.logger.warn('TOOL confidential path failed', { tool, error: error.message });
    return undefined;
  }
}

/** `HGK137803` → `HG•••••03`: enough for the model and a reader to tell which value, not the value. */
export function masked(value: string | number): string {
  const text = String(value);
  if (text.length <= 4) return '•'.repeat(text.length);
  const keep = text.length >= 8 ? 2 : 1;
  return `${text.slice(0, keep)}${'•'.repeat(text.length - 2 * keep)}${text.slice(-keep)}`;
}

/**
 * Step 3a: a write whose arguments carry a confidential value of the run (see `carries`) the user has
 * not stated is REJECTED `CONFIDENTIAL_VALUE_REFUSED`. Reads, builtins and flows without
 * `confidential` parts pass untouched.
 */
export function confidentialGuard(): Check<ParsedCall, object> {
  return async function confidential(ctx) {
    if (!ctx.isWrite) return {};
    const values = await confidentialValues(ctx);
    if (values.length === 0) return {};
    const texts = userTexts(ctx.run);
    for (const [field, arg] of Object.entries(ctx.args)) {
      const leaves = scalarLeaves(arg).filter(
        (leaf): leaf is string | number => typeof leaf === 'string' || typeof leaf === 'number',
      );
      for (const found of values) {
        if (!leaves.some((leaf) => carries(String(leaf), found.value))) continue;
        if (texts.some((t) => carries(t, found.value))) continue;
        const { locale } = ctx;
        const value = masked(found.value);
        return {
          stop: Observation.rejected(
            code('CONFIDENTIAL_VALUE_REFUSED'),
            code('CONFIDENTIAL_VALUE_REFUSED').reason(locale, { field, value, tool: found.tool }),
            hint(locale, 'NEXT_CONFIDENTIAL_REFUSED', { field, tool: found.tool }),
          ),
        };
      }
    }
    return {};
  };
}
