import { code } from '../../domain/error-codes.js';
import { hint, list } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { evaluate, ExpressionError, slowRegexes } from '../expressions.js';
import type { ProducedCase } from '../produces.js';
import { standardBuiltin } from './define.js';

/** What builtin_evidence_read produces (for docs/observations.md). */
const EVIDENCE_READ_PRODUCES: readonly ProducedCase[] = [
  {
    producer: 'builtin_evidence_read',
    case: 'the evidence record’s payload, or the part `path` selects',
    code: null,
  },
  {
    producer: 'builtin_evidence_read',
    case: 'no evidence of this run has that id (next lists some)',
    code: 'EVIDENCE_NOT_FOUND',
    next: 'NEXT_EVIDENCE_ID',
  },
  {
    producer: 'builtin_evidence_read',
    case: '`path` is not a valid JSONata expression over the payload',
    code: 'ARG_REJECTED',
    next: 'NEXT_ARG_REJECTED',
  },
];

/** How many evidence ids a rejection's next step lists (the newest ones). */
const LISTED_IDS = 10;

/**
 * builtin_evidence_read (issue 20): returns an evidence record of the run — its payload, or the part
 * a JSONata `path` selects — so that the model can see again a result that context compaction
 * replaced by a stub. The observation carries the record's evidence id, so outputs can cite it. It
 * reads the ledger only; it never calls a tool. The model is offered it once its node run compacted
 * (src/engine/context-host.ts); it is never in a node's static catalog.
 */
/** The longest `path` the model may give (an expression, compiled to ~35× its text). */
const MAX_MODEL_PATH = 1024;

export const evidenceReadTool = standardBuiltin({
  name: 'builtin_evidence_read',
  description: {
    'zh-CN':
      '按 evidence 编号读取本次运行中一次工具调用的结果（可用 JSONata 的 path 只取其中一部分）。用于再次查看已被压缩的结果。',
    en: 'Reads the result of a tool call of this run by its evidence id (optionally only the part a JSONata `path` selects). Use it to see again a result that was compacted.',
  },
  input: {
    properties: {
      id: { type: 'string', description: { 'zh-CN': '证据编号，如 ev_3', en: 'The evidence id, e.g. ev_3' } },
      path: {
        type: 'string',
        description: {
          'zh-CN': '可选：JSONata 表达式，从结果中选出一部分',
          en: 'Optional: a JSONata expression selecting a part of the result',
        },
      },
    },
    required: ['id'],
  },
  produces: EVIDENCE_READ_PRODUCES,
  visible: () => false,
  async execute(args, ctx) {
    const id = typeof args.id === 'string' ? args.id : '';
    const record = ctx.run.evidence.find((e) => e.id === id);
    if (!record) {
      const ids = ctx.run.evidence.slice(-LISTED_IDS).map((e) => e.id);
      return Observation.rejected(
        code('EVIDENCE_NOT_FOUND'),
        code('EVIDENCE_NOT_FOUND').reason(ctx.locale, { id }),
        hint(ctx.locale, 'NEXT_EVIDENCE_ID', {
          ids: ids.length > 0 ? list(ctx.locale, ids) : hint(ctx.locale, 'NONE'),
        }),
      );
    }
    const about = { id, tool: record.tool, outcome: record.outcome, args: JSON.stringify(record.args) };
    const path = typeof args.path === 'string' && args.path.trim() !== '' ? args.path : null;
    if (!path)
      return Observation.success(hint(ctx.locale, 'EVIDENCE_READ', about), record.payload).withEvidence(id);
    let part: unknown;
    try {
      // The model writes this path: it runs in the sandbox, is short, and its regexes run in linear time.
      if (path.length > MAX_MODEL_PATH)
        throw new ExpressionError('COMPILE', path.slice(0, 40), `longer than ${MAX_MODEL_PATH} characters`);
      const slow = slowRegexes(path);
      if (slow.length > 0) throw new ExpressionError('COMPILE', path, slow.join('; '));
      part = await evaluate(path, record.payload, { sandboxed: true });
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      return Observation.rejected(
        code('ARG_REJECTED'),
        code('ARG_REJECTED').reason(ctx.locale, { field: 'path', rule: error.message }),
        hint(ctx.locale, 'NEXT_ARG_REJECTED', { field: 'path', tool: 'builtin_evidence_read' }),
      );
    }
    return Observation.success(
      hint(ctx.locale, 'EVIDENCE_READ_PART', { ...about, path }),
      part ?? null,
    ).withEvidence(id);
  },
});
