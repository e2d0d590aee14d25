import { code } from '../../domain/error-codes.js';
import {
  fromTools,
  sourceKinds,
  type DeriveOperand,
  type Derivation,
  type ToolTrust,
} from '../../domain/flow.js';
import { hint, list } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { toolTrust } from '../../domain/tool.js';
import type { EvidenceRecord, ValueMatch } from '../../records/run-state.js';
import { evaluate, ExpressionError } from '../expressions.js';
import { saidByUser, scalarLeaves, showValue, type JsonPath } from '../matching.js';
import { numericValue, numbersIn, sameNumber } from '../numbers.js';
import type { ParsedCall } from '../stages.js';
import { candidatesOf, fromEntryNames, redact, textsOf } from './untrusted.js';

/**
 * Derived values (docs/flows.md, "Derived values"): a parameter whose contract says `derive` must be
 * `op` over values that each pass their operand's own contract — numbers in the results of the
 * operand's `from` calls (what `path` selects; numbers written inside texts too), or in the user's
 * words — found by trying the combinations (at most `MAX_COMBINATIONS`).
 */

/** The most combinations of operand values tried for one derivation. */
export const MAX_COMBINATIONS = 50_000;
/** The most distinct values one operand offers. */
const MAX_CANDIDATES = 300;

/** One value an operand may take, and where it came from (`98.70 (ev_2)`, `100 (user)`). */
interface Candidate {
  value: number;
  shown: string;
}

const SIGN: Record<Derivation['op'], string> = {
  sum: '+',
  difference: '−',
  product: '×',
  percentage: '+',
  round: '+',
};

/** Checks `derive` contracts of one call; `record` is told where a derived value came from. */
export class Derivations {
  constructor(
    private readonly ctx: ParsedCall,
    private readonly texts: readonly string[],
    private readonly record: (at: JsonPath, match: ValueMatch) => void,
  ) {}

  /** The rejection of `value` at `at` under `derivation`, or null once a derivation is found (and recorded). */
  async check(at: JsonPath, derivation: Derivation, value: unknown): Promise<Observation | null> {
    const target = numericValue(value);
    const found = target === null ? null : await this.find(derivation, (n) => sameNumber(n, target));
    if (found) {
      this.record(at, {
        at: [],
        source: 'derived',
        trust: 'derived',
        derivation: `${found.shown} = ${showValue(value)}`,
      });
      return null;
    }
    const { locale } = this.ctx;
    const field = at.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
    const tools = list(locale, operandTools(derivation));
    return Observation.rejected(
      code('PARAM_DERIVATION_MISMATCH'),
      code('PARAM_DERIVATION_MISMATCH').reason(locale, { field, value: showValue(value), op: derivation.op }),
      hint(locale, 'NEXT_DERIVATION', { field, op: derivation.op, tools }),
    );
  }

  /** The first combination of operand values whose result `accept`s, or null. */
  private async find(derivation: Derivation, accept: (n: number) => boolean): Promise<Candidate | null> {
    const operands = await Promise.all(derivation.of.map((operand) => this.candidates(operand)));
    let tried = 0;
    const chosen: Candidate[] = [];
    const walk = (i: number): Candidate | null => {
      if (tried >= MAX_COMBINATIONS) return null;
      if (i === operands.length) {
        tried += 1;
        const result = compute(
          derivation,
          chosen.map((c) => c.value),
        );
        return accept(result) ? { value: result, shown: describe(derivation, chosen) } : null;
      }
      for (const candidate of operands[i] as Candidate[]) {
        chosen.push(candidate);
        const hit = walk(i + 1);
        chosen.pop();
        if (hit) return hit;
      }
      return null;
    };
    return walk(0);
  }

  /** The values an operand may take: a nested derivation's results, numbers of its `from` results, the user's numbers. */
  private async candidates(operand: DeriveOperand): Promise<Candidate[]> {
    const out = new Map<number, Candidate>();
    const add = (value: number, shown: string): void => {
      if (out.size < MAX_CANDIDATES && !out.has(value)) out.set(value, { value, shown });
    };
    if (operand.derive) {
      const nested = operand.derive;
      await this.find(nested, (n) => {
        add(n, '');
        return out.size >= MAX_CANDIDATES;
      });
      // Re-derive each value's description lazily: a nested result is shown by its own arithmetic.
      for (const [value] of out) {
        const again = await this.find(nested, (n) => sameNumber(n, value));
        out.set(value, { value, shown: `(${again?.shown ?? String(value)})` });
      }
      return [...out.values()];
    }
    const kinds = sourceKinds(operand);
    if (kinds.includes('evidence')) {
      for (const evidence of this.evidenceOf(operand)) {
        for (const n of await this.numbersOf(operand, evidence)) add(n.value, `${n.text} (${evidence.id})`);
      }
    }
    if (kinds.includes('user')) {
      for (const text of this.texts)
        for (const n of numbersIn(text.normalize('NFKC'))) add(n.value, `${n.text} (user)`);
    }
    return [...out.values()];
  }

  private evidenceOf(operand: DeriveOperand): EvidenceRecord[] {
    const from = operand.from ?? [];
    return this.ctx.run.evidence
      .filter((e) => e.outcome === 'SUCCESS' && from.some((entry) => fromEntryNames(entry, e, this.texts)))
      .reverse();
  }

  /** The numbers an operand may take from one result, under its `untrusted` mode. */
  private async numbersOf(
    operand: DeriveOperand,
    evidence: EvidenceRecord,
  ): Promise<{ value: number; text: string }[]> {
    const trust: ToolTrust =
      operand.untrusted === undefined
        ? 'trusted'
        : toolTrust(this.ctx.tools.get(evidence.tool), this.ctx.flow.tools[evidence.tool]);
    const all = numbersOfTree(await this.select(operand.path, evidence.payload));
    if (trust === 'trusted') return all;
    const parts =
      trust === 'untrusted'
        ? [evidence.payload]
        : await Promise.all(trust.untrusted.map((p) => this.select(p, evidence.payload)));
    const rest = trust === 'untrusted' ? undefined : redact(evidence.payload, parts);
    const trusted = rest === undefined ? [] : numbersOfTree(await this.select(operand.path, rest));
    const isTrusted = (n: { value: number }): boolean => trusted.some((t) => sameNumber(t.value, n.value));
    const texts = textsOf(parts);
    return all.filter((n) => {
      if (isTrusted(n)) return true;
      if (operand.untrusted === 'pinned') return saidByUser(n.value, this.texts);
      if (operand.untrusted === 'single') return candidatesOf(n.value, texts).length === 1;
      return false;
    });
  }

  private async select(path: string | undefined, payload: unknown): Promise<unknown> {
    if (path === undefined) return payload;
    try {
      return await evaluate(path, payload);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      this.ctx.services.logger.warn('TOOL derive path failed', {
        tool: this.ctx.call.tool,
        error: error.message,
      });
      return undefined;
    }
  }
}

/** Every number of a JSON value: numeric leaves, and numbers written inside string leaves. */
function numbersOfTree(tree: unknown): { value: number; text: string }[] {
  return scalarLeaves(tree).flatMap((leaf) => {
    const n = numericValue(leaf);
    if (n !== null) return [{ value: n, text: String(leaf) }];
    return typeof leaf === 'string' ? numbersIn(leaf).map((m) => ({ value: m.value, text: m.text })) : [];
  });
}

/** `op` over `values` (docs/flows.md, "Derived values"), rounded to `decimals` when given. */
export function compute(derivation: Derivation, values: readonly number[]): number {
  const sum = values.reduce((a, b) => a + b, 0);
  const first = values[0] ?? 0;
  const raw =
    derivation.op === 'difference'
      ? first - values.slice(1).reduce((a, b) => a + b, 0)
      : derivation.op === 'product'
        ? values.reduce((a, b) => a * b, 1) * (derivation.factor ?? 1)
        : derivation.op === 'percentage'
          ? (sum * (derivation.factor ?? 0)) / 100
          : sum;
  if (derivation.decimals === undefined) return raw;
  // Half away from zero, as amounts are rounded; 15 significant digits first drop the binary noise
  // (1.005 × 100 is 100.49999999999999: 1.01, not 1.00), for any size and either sign.
  const scale = 10 ** derivation.decimals;
  return (Math.sign(raw) * Math.round(Number((Math.abs(raw) * scale).toPrecision(15)))) / scale;
}

function describe(derivation: Derivation, chosen: readonly Candidate[]): string {
  const terms = chosen.map((c) => c.shown).join(` ${SIGN[derivation.op]} `);
  const factor = derivation.factor ?? 1;
  const body =
    derivation.op === 'percentage'
      ? `${factor}% of ${chosen.length > 1 ? `(${terms})` : terms}`
      : derivation.op === 'product' && factor !== 1
        ? `${terms} × ${factor}`
        : terms;
  return derivation.decimals === undefined ? body : `round(${body}, ${derivation.decimals})`;
}

/** The tools a derivation's operands name, at any depth. */
function operandTools(derivation: Derivation): string[] {
  const names = derivation.of.flatMap((operand) =>
    operand.derive ? operandTools(operand.derive) : fromTools(operand.from),
  );
  return [...new Set(names)];
}
