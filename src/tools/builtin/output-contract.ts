import { code, type ReasonParams, type RuntimeErrorCodeName } from '../../domain/error-codes.js';
import type { OutputContract } from '../../domain/flow.js';
import { hint, list, type HintKey } from '../../domain/hints.js';
import type { Locale } from '../../domain/locale.js';
import { Observation } from '../../domain/observation.js';
import {
  userTexts,
  type EvidenceRecord,
  type OutputValue,
  type RunState,
  type ValueMatch,
} from '../../records/run-state.js';
import type { PipelineLogger } from '../call.js';
import { isEmptyValue, locate, occursIn, saidByUser, showValue, valuesNamed } from '../matching.js';
import { outputSchemaMismatch } from './output-schema.js';

/** The source types an output may cite (docs/flows.md, outputs). */
export const SOURCE_TYPES = ['evidence', 'user', 'node', 'model'] as const;
type SourceType = (typeof SOURCE_TYPES)[number];

/** What builtin_output_set asks to write. */
export interface OutputWrite {
  key: string;
  value: unknown;
  sourceType: string;
  sourceRef?: string | null;
}

const SAMPLE_SIZE = 5;

/**
 * Checks a builtin_output_set call against the node's output contracts (docs/observations.md). Each rejection is a
 * REJECTED observation (returned, not thrown) whose reason names what is wrong and whose next step names what is accepted;
 * for a non-required output the next step adds "也可以不写，直接调用 builtin_node_finish".
 * An empty value (`""`, null) of an optional output needs no source check. Cited evidence: each
 * element of a list is looked for on its own; a string may stand inside a string of the payload at
 * word boundaries unless the contract says `match: equals` (docs/flows.md, matching); where each
 * value was found is stored as the output's `match`.
 */
export class OutputContractValidator {
  constructor(
    private readonly outputs: Readonly<Record<string, OutputContract>>,
    private readonly run: RunState,
    private readonly locale: Locale,
    private readonly logger: PipelineLogger,
  ) {}

  /** The value to store, or the REJECTED observation that says why it may not be stored. */
  validate(write: OutputWrite): { ok: true; stored: OutputValue } | { ok: false; rejection: Observation } {
    const contract = this.outputs[write.key];
    if (!contract) {
      const keys = Object.keys(this.outputs);
      const rejection = this.reject(null, 'OUTPUT_KEY_UNDECLARED', { key: write.key }, 'NEXT_OUTPUT_KEYS', {
        keys: keys.length > 0 ? list(this.locale, keys) : hint(this.locale, 'NONE'),
      });
      return { ok: false, rejection };
    }
    const mismatch = outputSchemaMismatch(write.key, contract, write.value, this.locale, this.logger);
    if (mismatch) {
      const { reason, next } = mismatch;
      const rejection = this.reject(contract, 'OUTPUT_SCHEMA_MISMATCH', reason, 'NEXT_OUTPUT_SCHEMA', next);
      return { ok: false, rejection };
    }
    const type = write.sourceType;
    if (
      !(SOURCE_TYPES as readonly string[]).includes(type) ||
      !contract.sources.includes(type as SourceType)
    ) {
      const detail = (SOURCE_TYPES as readonly string[]).includes(type)
        ? hint(this.locale, 'OUTPUT_TYPE_NOT_ACCEPTED', { key: write.key, type })
        : hint(this.locale, 'OUTPUT_TYPE_UNKNOWN', { type });
      const rejection = this.reject(
        contract,
        'OUTPUT_SOURCE_INVALID',
        { detail },
        'NEXT_OUTPUT_SOURCE_TYPES',
        {
          types: list(this.locale, contract.sources),
        },
      );
      return { ok: false, rejection };
    }
    const ref =
      typeof write.sourceRef === 'string' && write.sourceRef.trim() !== '' ? write.sourceRef.trim() : null;
    const stored: OutputValue = { value: write.value, sourceType: type as SourceType, sourceRef: ref };
    if (!contract.required && isEmptyValue(write.value)) return { ok: true, stored };
    if (type === 'evidence') {
      const checked = this.checkEvidence(write, contract, ref);
      if (checked instanceof Observation) return { ok: false, rejection: checked };
      return { ok: true, stored: { ...stored, match: checked } };
    }
    const rejection =
      type === 'node'
        ? this.checkNode(write, contract, ref)
        : type === 'user'
          ? this.checkUser(write, contract)
          : null;
    return rejection ? { ok: false, rejection } : { ok: true, stored };
  }

  /** Where each value was found in the cited evidence, or the rejection. */
  private checkEvidence(
    write: OutputWrite,
    contract: OutputContract,
    ref: string | null,
  ): Observation | ValueMatch[] {
    const from = contract.from ?? [];
    const tools = from.length > 0 ? list(this.locale, from) : hint(this.locale, 'ANY_TOOL');
    if (!ref) {
      return this.reject(
        contract,
        'OUTPUT_SOURCE_REF_MISSING',
        { key: write.key },
        'NEXT_OUTPUT_SOURCE_REF',
        {
          what: hint(this.locale, 'OUTPUT_REF_EVIDENCE', { tools }),
        },
      );
    }
    const evidence = this.run.evidence.find((e) => e.id === ref);
    const invalid = (detail: string) =>
      this.reject(contract, 'OUTPUT_SOURCE_INVALID', { detail }, 'NEXT_OUTPUT_TOOLS', { tools });
    if (!evidence) return invalid(hint(this.locale, 'OUTPUT_EVIDENCE_UNKNOWN', { ref }));
    if (from.length > 0 && !from.includes(evidence.tool)) {
      return invalid(hint(this.locale, 'OUTPUT_EVIDENCE_TOOL', { tool: evidence.tool, ref, key: write.key }));
    }
    if (evidence.outcome !== 'SUCCESS')
      return invalid(hint(this.locale, 'OUTPUT_EVIDENCE_FAILED', { tool: evidence.tool, ref }));
    const contains = contract.match !== 'equals';
    const units: [ValueMatch['at'], unknown][] = Array.isArray(write.value)
      ? write.value.map((item, i) => [[i], item])
      : [[[], write.value]];
    const matches: ValueMatch[] = [];
    for (const [at, value] of units) {
      const hit = locate(value, evidence.payload, { contains });
      if (!hit) return this.notInEvidence(write, contract, evidence, value, contains);
      matches.push({
        at,
        source: 'evidence',
        evidenceId: evidence.id,
        path: hit.path,
        ...(hit.span ? { span: hit.span } : {}),
      });
    }
    return matches;
  }

  private notInEvidence(
    write: OutputWrite,
    contract: OutputContract,
    evidence: EvidenceRecord,
    value: unknown,
    contains: boolean,
  ): Observation {
    const detail = hint(this.locale, 'OUTPUT_VALUE_NOT_IN_EVIDENCE', {
      tool: evidence.tool,
      ref: evidence.id,
      value: showValue(value),
    });
    const samples = [
      ...new Set(
        valuesNamed(evidence.payload, write.key)
          .filter((v) => v !== null && v !== '')
          .map((v) => showValue(v, 40)),
      ),
    ].slice(0, SAMPLE_SIZE);
    const extra =
      samples.length > 0
        ? hint(this.locale, 'OUTPUT_VALUE_SAMPLES', { key: write.key, values: list(this.locale, samples) })
        : undefined;
    const next = contains ? 'NEXT_OUTPUT_VALUE' : 'NEXT_OUTPUT_VALUE_EXACT';
    return this.reject(contract, 'OUTPUT_VALUE_MISMATCH', { detail }, next, {}, extra);
  }

  private checkNode(write: OutputWrite, contract: OutputContract, ref: string | null): Observation | null {
    const refs = Object.entries(this.run.nodeOutputs).flatMap(([node, outputs]) =>
      Object.keys(outputs).map((k) => `${node}.${k}`),
    );
    const what = hint(this.locale, 'OUTPUT_REF_NODE', {
      refs: refs.length > 0 ? list(this.locale, refs) : hint(this.locale, 'NONE'),
    });
    if (!ref)
      return this.reject(
        contract,
        'OUTPUT_SOURCE_REF_MISSING',
        { key: write.key },
        'NEXT_OUTPUT_SOURCE_REF',
        {
          what,
        },
      );
    const dot = ref.indexOf('.');
    const outputs = dot > 0 ? this.run.nodeOutputs[ref.slice(0, dot)] : undefined;
    const key = ref.slice(dot + 1);
    if (!outputs || !Object.hasOwn(outputs, key)) {
      const detail = hint(this.locale, 'OUTPUT_NODE_UNKNOWN', { ref });
      return this.reject(contract, 'OUTPUT_SOURCE_INVALID', { detail }, 'NEXT_OUTPUT_SOURCE_REF', { what });
    }
    const source = outputs[key];
    if (!occursIn(write.value, source)) {
      const detail = hint(this.locale, 'OUTPUT_VALUE_NOT_IN_NODE', { ref, value: showValue(write.value) });
      return this.reject(contract, 'OUTPUT_VALUE_MISMATCH', { detail }, 'NEXT_OUTPUT_NODE_VALUE', {
        ref,
        value: showValue(source),
      });
    }
    return null;
  }

  private checkUser(write: OutputWrite, contract: OutputContract): Observation | null {
    if (saidByUser(write.value, userTexts(this.run))) return null;
    const detail = hint(this.locale, 'OUTPUT_VALUE_NOT_SAID', { value: showValue(write.value) });
    return this.reject(contract, 'OUTPUT_VALUE_MISMATCH', { detail }, 'NEXT_OUTPUT_USER_VALUE', {});
  }

  private reject(
    contract: OutputContract | null,
    name: RuntimeErrorCodeName,
    reasonParams: ReasonParams,
    nextKey: HintKey,
    nextParams: ReasonParams,
    extra?: string,
  ): Observation {
    const sep = this.locale === 'zh-CN' ? '；' : '; ';
    let next = hint(this.locale, nextKey, nextParams);
    if (extra !== undefined) next = `${next}${sep}${extra}`;
    if (contract && !contract.required) {
      next = `${next}${sep}${hint(this.locale, 'NEXT_OPTIONAL_OUTPUT')}`;
    }
    return Observation.rejected(code(name), code(name).reason(this.locale, reasonParams), next);
  }
}
