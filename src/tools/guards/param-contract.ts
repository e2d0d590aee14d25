import { code } from '../../domain/error-codes.js';
import {
  fromTools,
  sourceKinds,
  type FieldContract,
  type ParamContract,
  type SourceKind,
  type ToolTrust,
  type UntrustedMode,
} from '../../domain/flow.js';
import { toolTrust } from '../../domain/tool.js';
import { hint, list } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { userTexts, type EvidenceRecord, type ValueMatch } from '../../records/run-state.js';
import { evaluate, ExpressionError } from '../expressions.js';
import {
  isEmptyValue,
  isScalar,
  locate,
  pathOf,
  saidByUser,
  scalarLeaves,
  showValue,
  valueAt,
  valuesNamed,
  type Hit,
  type JsonPath,
  type Scalar,
} from '../matching.js';
import type { Check } from '../compose.js';
import type { ParsedCall, Provenance } from '../stages.js';
export { PARAM_CONTRACT_PRODUCES } from './param-contract-produces.js';
import { candidatesOf, contextAround, fromEntryNames, redact, textsOf } from './untrusted.js';
import { Derivations } from './derive.js';

/** A value found in an untrusted part of a result: kept until no trusted source holds it. */
interface UntrustedHit {
  evidence: EvidenceRecord;
  hit: Hit;
  selection: unknown;
  trust: ToolTrust;
}

const SAMPLE_SIZE = 5;

/** A contract as the checks read it: a parameter's or one of its fields'. */
type Contract = ParamContract | FieldContract;

/**
 * Step 3 (ParamContractInterceptor): checks each present argument against its `params` contract
 * (docs/flows.md, parameter contracts). An empty value (`""`, null) of an optional argument needs no
 * provenance; each element of a list is checked on its own, and each field named in `fields` of an
 * object (or of each object element); each leaf value must pass `enum` (exact JSON equality) and one
 * of its `source` kinds: `evidence` (the value occurs in a SUCCESS evidence of a `from` tool, or in
 * what `path` selects from it, newest evidence first; inside a text with `match: contains`), `user`
 * (the user said it). Learns `provenance` (argument → the first evidence id a value of it was found
 * in), `userProvenance` (argument → the user's words) and `matches` (argument → where each value was found).
 */
export function paramContractGuard(): Check<ParsedCall, Provenance> {
  return async function paramContract(ctx) {
    const checker = new ParamChecker(ctx);
    const args = ctx.args;
    const required = new Set(requiredOf(ctx.descriptor.inputSchema));
    for (const [field, contract] of Object.entries(ctx.policy?.params ?? {})) {
      if (!Object.hasOwn(args, field) || args[field] === undefined) continue;
      const mandatory = contract.required === true || required.has(field);
      const rejection = await checker.check([field], contract, args[field], mandatory);
      if (rejection) return { stop: rejection };
    }
    return checker.found;
  };
}

function requiredOf(schema: unknown): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  const required = (schema as { required?: unknown }).required;
  return Array.isArray(required) ? required.filter((r): r is string => typeof r === 'string') : [];
}

/** `item_ids[1]`, `address.city`: a place inside the arguments as the model reads it. */
function label(at: JsonPath): string {
  return at.map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? step : `.${step}`)).join('');
}

/** The checks of one call: what they found so far, and the selections of `path` already evaluated. */
class ParamChecker {
  readonly found: {
    provenance: Record<string, string>;
    userProvenance: Record<string, string>;
    matches: Record<string, ValueMatch[]>;
  } = { provenance: {}, userProvenance: {}, matches: {} };
  private readonly selections = new Map<string, unknown>();
  private readonly texts: readonly string[];
  private readonly derivations: Derivations;

  constructor(private readonly ctx: ParsedCall) {
    this.texts = userTexts(ctx.run);
    this.derivations = new Derivations(ctx, this.texts, (at, match) => {
      const [arg, ...inside] = at as [string, ...JsonPath];
      (this.found.matches[arg] ??= []).push({ ...match, at: inside });
    });
  }

  /** Checks `value` at `at` (argument name first) against `contract`; the rejection, or null. */
  async check(
    at: JsonPath,
    contract: Contract,
    value: unknown,
    mandatory: boolean,
  ): Promise<Observation | null> {
    if (isEmptyValue(value) && !mandatory) return null;
    const fields = 'fields' in contract ? contract.fields : undefined;
    if (Array.isArray(value) && (fields || contract.enum || contract.source || contract.derive)) {
      for (const [i, item] of value.entries()) {
        const rejection = await this.check([...at, i], contract, item, true);
        if (rejection) return rejection;
      }
      return null;
    }
    if (fields) {
      if (value === null || typeof value !== 'object') return null;
      const object = value as Record<string, unknown>;
      for (const [name, sub] of Object.entries(fields)) {
        if (!Object.hasOwn(object, name) || object[name] === undefined) continue;
        const rejection = await this.check([...at, name], sub, object[name], sub.required === true);
        if (rejection) return rejection;
      }
      return null;
    }
    return this.checkLeaf(at, contract, value);
  }

  private async checkLeaf(at: JsonPath, contract: Contract, value: unknown): Promise<Observation | null> {
    const { locale } = this.ctx;
    const field = label(at);
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
    if (contract.derive) return this.derivations.check(at, contract.derive, value);
    const kinds = sourceKinds(contract);
    if (kinds.length === 0) return null;
    const sources = kinds.includes('evidence') ? this.evidenceOf(contract) : [];
    let untrusted: UntrustedHit | null = null;
    for (const evidence of sources) {
      const selection = await this.select(contract.path, evidence);
      const contains = { contains: contract.match === 'contains' };
      const trust = contract.untrusted === undefined ? 'trusted' : this.trustOf(evidence);
      const trusted = await this.trustedPart(contract.path, evidence, trust);
      const hit = trusted === undefined ? null : locate(value, trusted, contains);
      if (hit) {
        const selected = contract.path === undefined ? null : { selection };
        this.recordEvidence(at, evidence, hit, selected, contract.untrusted ? 'trusted' : undefined);
        return null;
      }
      const inUntrusted: Hit | null =
        untrusted || !contract.untrusted ? null : locate(value, selection, contains);
      if (inUntrusted) untrusted = { evidence, hit: inUntrusted, selection, trust };
    }
    if (kinds.includes('user') && saidByUser(value, this.texts)) {
      this.recordUser(at, value, contract.untrusted ? 'user' : undefined);
      return null;
    }
    if (untrusted && contract.untrusted)
      return this.untrustedValue(at, contract, contract.untrusted, value, untrusted);
    return this.reject(at, contract, kinds, value, sources);
  }

  /** How far the results of `evidence`'s tool are trusted (policy `trust`, else MCP `openWorldHint`). */
  private trustOf(evidence: EvidenceRecord): ToolTrust {
    return toolTrust(this.ctx.tools.get(evidence.tool), this.ctx.flow.tools[evidence.tool]);
  }

  /**
   * What a contract may take from `evidence` as trusted: all it selects of a trusted result, nothing
   * of an untrusted one, else what it selects once the untrusted parts are removed.
   */
  private async trustedPart(
    path: string | undefined,
    evidence: EvidenceRecord,
    trust: ToolTrust,
  ): Promise<unknown> {
    if (trust === 'trusted') return this.select(path, evidence);
    if (trust === 'untrusted') return undefined;
    const rest = redact(evidence.payload, await this.untrustedParts(evidence, trust));
    return path === undefined ? rest : this.evaluatePath(path, { ...evidence, payload: rest });
  }

  /** What each `trust.untrusted` path selects in `evidence` (the whole payload for an untrusted tool). */
  private async untrustedParts(evidence: EvidenceRecord, trust: ToolTrust): Promise<unknown[]> {
    if (trust === 'untrusted') return [evidence.payload];
    if (trust === 'trusted') return [];
    return Promise.all(trust.untrusted.map((path) => this.select(path, evidence)));
  }

  /** A value found only in untrusted text, under `untrusted: refuse | single | pinned`. */
  private async untrustedValue(
    at: JsonPath,
    contract: Contract,
    mode: UntrustedMode,
    value: unknown,
    found: UntrustedHit,
  ): Promise<Observation | null> {
    const { locale } = this.ctx;
    const field = label(at);
    const shown = showValue(value);
    const tools = list(locale, fromTools(contract.from));
    const selected = contract.path === undefined ? null : found;
    if (mode === 'pinned' && saidByUser(value, this.texts)) {
      this.recordEvidence(at, found.evidence, found.hit, selected, 'user');
      return null;
    }
    if (mode === 'refuse' || mode === 'pinned') {
      const name = mode === 'refuse' ? 'PARAM_UNTRUSTED_REFUSED' : 'PARAM_UNTRUSTED_NOT_PINNED';
      return Observation.rejected(
        code(name),
        code(name).reason(locale, { field, value: shown, tools }),
        hint(locale, mode === 'refuse' ? 'NEXT_UNTRUSTED_REFUSED' : 'NEXT_UNTRUSTED_NOT_PINNED', { field }),
      );
    }
    const texts = textsOf(await this.untrustedParts(found.evidence, found.trust));
    const candidates = candidatesOf(value, texts);
    if (candidates.length > 1) {
      const all = list(
        locale,
        candidates.map((c) => showValue(c, 60)),
      );
      return Observation.deferred(
        code('PARAM_UNTRUSTED_AMBIGUOUS'),
        code('PARAM_UNTRUSTED_AMBIGUOUS').reason(locale, { field, value: shown, tools, candidates: all }),
        hint(locale, 'NEXT_UNTRUSTED_AMBIGUOUS', { field, candidates: all }),
      );
    }
    this.recordEvidence(at, found.evidence, found.hit, selected, 'untrusted');
    return null;
  }

  /** The SUCCESS evidence of the contract's `from` calls (tools, or `{tool, where}`), newest first. */
  private evidenceOf(contract: Pick<Contract, 'from'>): EvidenceRecord[] {
    const from = contract.from ?? [];
    return this.ctx.run.evidence
      .filter(
        (e) =>
          e.outcome === 'SUCCESS' &&
          (from.length === 0 || from.some((entry) => fromEntryNames(entry, e, this.texts))),
      )
      .reverse();
  }

  /** Records an evidence match; `selected`: what a `path` selected, when the hit is inside it. */
  private recordEvidence(
    at: JsonPath,
    evidence: EvidenceRecord,
    hit: Hit,
    selected: { selection: unknown } | null,
    trust?: ValueMatch['trust'],
  ): void {
    const [arg, ...inside] = at as [string, ...JsonPath];
    this.found.provenance[arg] ??= evidence.id;
    const match: ValueMatch = { at: inside, source: 'evidence', evidenceId: evidence.id };
    if (trust) match.trust = trust;
    if (trust === 'untrusted' || (trust === 'user' && hit.span)) {
      const leaf = valueAt(selected ? selected.selection : evidence.payload, hit.path);
      match.context = contextAround(typeof leaf === 'string' ? leaf : showValue(leaf, 200), hit.span);
    }
    // A `path` selection is a new value: find the matched leaf in the payload itself to point at it.
    const path = selected ? pathOf(evidence.payload, valueAt(selected.selection, hit.path)) : hit.path;
    if (path) {
      match.path = path;
      if (hit.span) match.span = hit.span;
    }
    (this.found.matches[arg] ??= []).push(match);
  }

  private recordUser(at: JsonPath, value: unknown, trust?: ValueMatch['trust']): void {
    const [arg, ...inside] = at as [string, ...JsonPath];
    const words = userWords(value, this.texts);
    const earlier = this.found.userProvenance[arg];
    this.found.userProvenance[arg] =
      earlier === undefined || earlier.split('\n').includes(words)
        ? (earlier ?? words)
        : `${earlier}\n${words}`;
    (this.found.matches[arg] ??= []).push({ at: inside, source: 'user', ...(trust ? { trust } : {}) });
  }

  /** The part of an evidence payload the contract allows values from: all of it, or what `path` selects. */
  private async select(path: string | undefined, evidence: EvidenceRecord): Promise<unknown> {
    if (!path) return evidence.payload;
    const key = `${evidence.id}\u0000${path}`;
    if (!this.selections.has(key)) this.selections.set(key, await this.evaluatePath(path, evidence));
    return this.selections.get(key);
  }

  private async evaluatePath(path: string, evidence: EvidenceRecord): Promise<unknown> {
    try {
      return await evaluate(path, evidence.payload);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      this.ctx.services.logger.warn('TOOL param path failed', {
        tool: this.ctx.call.tool,
        evidence: evidence.id,
        error: error.message,
      });
      return undefined;
    }
  }

  private async reject(
    at: JsonPath,
    contract: Contract,
    kinds: SourceKind[],
    value: unknown,
    sources: EvidenceRecord[],
  ): Promise<Observation> {
    const { locale } = this.ctx;
    const field = label(at);
    const shown = showValue(value);
    const user = kinds.includes('user');
    if (!kinds.includes('evidence')) {
      return Observation.rejected(
        code('PARAM_PROVENANCE_ASK_FIRST'),
        code('PARAM_PROVENANCE_ASK_FIRST').reason(locale, { field, value: shown }),
        hint(locale, 'NEXT_ASK_FIRST', { field }),
      );
    }
    const from = fromTools(contract.from);
    const tools = from.length > 0 ? list(locale, from) : hint(locale, 'ANY_TOOL');
    if (sources.length === 0) {
      return Observation.rejected(
        code('PARAM_PROVENANCE_QUERY_FIRST'),
        code('PARAM_PROVENANCE_QUERY_FIRST').reason(locale, { field, tools }),
        hint(locale, user ? 'NEXT_QUERY_OR_ASK' : 'NEXT_QUERY_FIRST', { tools, tool: this.ctx.call.tool }),
      );
    }
    const samples = await this.sameKind(at, contract, sources);
    const values = list(locale, samples);
    const next =
      samples.length === 0
        ? hint(locale, user ? 'NEXT_MISMATCH_OR_ASK' : 'NEXT_ASK_FIRST', { field, tools })
        : user
          ? hint(locale, 'NEXT_PROVENANCE_MISMATCH_OR_USER', { tools, values })
          : contract.match === 'contains'
            ? hint(locale, 'NEXT_PROVENANCE_MISMATCH_CONTAINS', { tools, values })
            : hint(locale, 'NEXT_PROVENANCE_MISMATCH', { tools, values });
    return Observation.rejected(
      code('PARAM_PROVENANCE_MISMATCH'),
      code('PARAM_PROVENANCE_MISMATCH').reason(locale, { field, value: shown, tools }),
      next,
    );
  }

  /**
   * A few values of the same kind to offer, newest evidence first: what `path` selects, else the
   * values under a key named like the argument or field (`valuesNamed`). Never unrelated values.
   */
  private async sameKind(at: JsonPath, contract: Contract, sources: EvidenceRecord[]): Promise<string[]> {
    const key = [...at].reverse().find((step): step is string => typeof step === 'string') ?? '';
    const shown = new Set<string>();
    for (const evidence of sources) {
      const selection = await this.select(contract.path, evidence);
      const leaves: Scalar[] = contract.path ? scalarLeaves(selection) : valuesNamed(selection, key);
      for (const leaf of leaves.filter(isScalar)) {
        if (leaf === null || leaf === '') continue;
        shown.add(showValue(leaf, 40));
        if (shown.size >= SAMPLE_SIZE) return [...shown];
      }
    }
    return [...shown];
  }
}

/** The user's text that says `value`; for a structured value said across several texts, those texts joined. */
function userWords(value: unknown, texts: readonly string[]): string {
  const one = texts.find((t) => saidByUser(value, [t]));
  if (one !== undefined) return one;
  const leaves = scalarLeaves(value);
  return texts.filter((t) => leaves.some((leaf) => saidByUser(leaf, [t]))).join('\n');
}
