import { z } from 'zod';
import { MAX_EXPRESSION_LENGTH } from './flow-graph.js';

/**
 * The provenance parts of the flow format (docs/flows.md, "Parameter contracts", "Untrusted text",
 * "Derived values"): where a tool argument's value may come from, how far the text of a tool result
 * is trusted, and the arithmetic a value may be derived by. Re-exported by src/domain/flow.ts.
 */

/** Names of tools as the model sees them: what the model APIs (OpenAI, Anthropic) accept. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const toolName = z
  .string()
  .regex(TOOL_NAME_PATTERN, { error: 'expected a tool name: 1-64 letters, digits, _ or -' });
const jsonata = (over: string) =>
  z
    .string()
    .min(1)
    .max(MAX_EXPRESSION_LENGTH, {
      error: `expected a JSONata expression of at most ${MAX_EXPRESSION_LENGTH} characters`,
    })
    .describe(`JSONata expression over ${over}`);
const scalar = z.union([z.string(), z.number(), z.boolean()]);

/** Where a value may come from: `evidence` (a prior tool result) or `user` (the user's words). */
export const SOURCE_KINDS = ['evidence', 'user'] as const;
/** One source kind, or several of which any one holds. */
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** What a value found only in untrusted text may be (`untrusted:` of a contract). */
export const UNTRUSTED_MODES = ['refuse', 'single', 'pinned'] as const;
/** One of `UNTRUSTED_MODES`. */
export type UntrustedMode = (typeof UNTRUSTED_MODES)[number];

/** The arithmetic a derived value may be computed by (`derive.op`). */
export const DERIVE_OPS = ['sum', 'difference', 'product', 'percentage', 'round'] as const;
/** One of `DERIVE_OPS`. */
export type DeriveOp = (typeof DERIVE_OPS)[number];

const sourceKind = z.enum(SOURCE_KINDS);

/** A condition on one argument of the call a `from` entry names: the user said it, or it equals a literal. */
export const WhereSchema = z
  .union([z.literal('user'), z.strictObject({ equals: scalar })], {
    error: 'expected user or { equals: <value> }',
  })
  .describe('user: the user said this argument of the earlier call; { equals: v }: it was exactly v.');

/** A `from` entry: a tool name, or a tool whose own call arguments must satisfy `where`. */
export const FromEntrySchema = z.union(
  [
    toolName,
    z.strictObject({
      tool: toolName,
      where: z
        .record(z.string(), WhereSchema)
        .refine((where) => Object.keys(where).length > 0, { error: 'expected at least one argument' })
        .describe("Conditions on the earlier call's own arguments."),
    }),
  ],
  { error: 'expected a tool name or { tool: <name>, where: { <argument>: user | { equals: <value> } } }' },
);

const provenanceBase = {
  source: z
    .union([sourceKind, z.array(sourceKind).min(1)], {
      error: (issue) => {
        const input: unknown = issue.input;
        if (typeof input === 'string')
          return `expected one of: "evidence", "user"; got ${JSON.stringify(input)}`;
        const items: readonly unknown[] = Array.isArray(input) ? input : [];
        const bad = items.find((kind) => !(SOURCE_KINDS as readonly unknown[]).includes(kind));
        return bad === undefined
          ? 'expected "evidence", "user", or a non-empty list of them'
          : `expected a list of "evidence" and "user"; got ${JSON.stringify(bad)}`;
      },
    })
    .optional()
    .describe(
      'evidence: the value must occur in a prior result of a `from` tool; user: the user must have said it; a list: any one of them (`[evidence, user]`). Each element of a list value is checked on its own.',
    ),
  from: z
    .array(FromEntrySchema)
    .min(1)
    .optional()
    .describe(
      'With source evidence: the tools whose results hold the allowed values; an entry { tool, where } names only the calls of that tool whose arguments satisfy where.',
    ),
  path: jsonata('the evidence payload')
    .optional()
    .describe('With source evidence: selects the allowed values (JSONata).'),
  match: z
    .enum(['equals', 'contains'])
    .optional()
    .describe(
      'With source evidence: `equals` (default) — the value equals a value of the result; `contains` — a string may also stand inside a string of the result, at word boundaries (docs/flows.md, matching).',
    ),
  untrusted: z
    .enum(UNTRUSTED_MODES)
    .optional()
    .describe(
      'What a value found only in untrusted text may be: refuse — never; single — only the single candidate of its kind in that text (several → DEFERRED to the person); pinned — only when the user said it too.',
    ),
};

/** One operand of a derivation: a contract of its own (source, from, path, untrusted), or a derivation. */
export interface DeriveOperand {
  source?: SourceKind | SourceKind[] | undefined;
  from?: FromEntry[] | undefined;
  path?: string | undefined;
  match?: 'equals' | 'contains' | undefined;
  untrusted?: UntrustedMode | undefined;
  derive?: Derivation | undefined;
}

/** `derive:` of a contract: the value is `op` over values that each pass their own contract. */
export interface Derivation {
  op: DeriveOp;
  of: DeriveOperand[];
  factor?: number | undefined;
  decimals?: number | undefined;
}

export const DeriveOperandSchema: z.ZodType<DeriveOperand> = z.lazy(() =>
  z
    .strictObject({ ...provenanceBase, derive: DerivationSchema.optional() })
    .describe('An operand: a contract of its own (source, from, path, untrusted) or a derivation.'),
);

export const DerivationSchema: z.ZodType<Derivation> = z.lazy(() =>
  z
    .strictObject({
      op: z
        .enum(DERIVE_OPS)
        .describe(
          'sum: of all operands; difference: first minus the others; product: of the operands, times factor; percentage: factor % of the sum of the operands; round: the sum of the operands.',
        ),
      of: z.array(DeriveOperandSchema).min(1).describe('The operands, each checked by its own contract.'),
      factor: z.number().optional().describe('product: a factor; percentage: the percentage (19.5).'),
      decimals: z
        .int()
        .min(0)
        .max(8)
        .optional()
        .describe('Round the result to this many decimals (the currency’s: 2 for EUR).'),
    })
    .describe('The value is computed by declared arithmetic from values that pass their own contracts.'),
);

/** The keys shared by parameter and field contracts. */
export const provenanceKeys = {
  ...provenanceBase,
  enum: z.array(scalar).min(1).optional().describe('The allowed values (each element, for a list value).'),
  derive: DerivationSchema.optional().describe(
    'The value is derived by arithmetic from values that pass their own contracts (stands alone: no source beside it).',
  ),
};

export const FieldContractSchema = z
  .strictObject({
    ...provenanceKeys,
    required: z
      .boolean()
      .optional()
      .describe('An empty field (`""` or null) needs provenance too; default: it needs none.'),
  })
  .describe('Provenance of one field of an object argument (or of each object element of a list argument).');

/** `trust` of a tool policy: how far the text of the tool's results is trusted, and what of it is confidential. */
export const TrustSchema = z
  .union(
    [
      z.enum(['trusted', 'untrusted']),
      z
        .strictObject({
          untrusted: z
            .array(jsonata('the result'))
            .min(1)
            .optional()
            .describe('The parts of the result that are untrusted text (JSONata paths).'),
          confidential: z
            .array(jsonata('the result'))
            .min(1)
            .optional()
            .describe(
              "The parts of the result that are confidential (JSONata paths; `$` the whole result): no write's arguments may carry them unless the user said them.",
            ),
        })
        .refine((trust) => trust.untrusted !== undefined || trust.confidential !== undefined, {
          error: 'expected untrusted: [<JSONata path>, …], confidential: [<JSONata path>, …] or both',
        }),
    ],
    {
      error:
        'expected trusted, untrusted or { untrusted: [<JSONata path>, …], confidential: [<JSONata path>, …] }',
    },
  )
  .describe(
    'untrusted: the whole result is untrusted text (documents, mail, web pages); { untrusted: [paths] }: only those parts; trusted: none. Default: from the MCP annotation openWorldHint (true → untrusted). Matters to contracts that state untrusted. { confidential: [paths] } (beside untrusted or alone): values no write may carry unless the user said them.',
  );

/** `reply` of a node: what its final reply may repeat (docs/flows.md, "Replies and untrusted text"). */
export const ReplySchema = z
  .strictObject({
    untrusted: z
      .enum(['refuse'])
      .describe(
        'refuse: a reply repeating a name (two or more capitalised words in a row) that stands only in untrusted text of this run, not in the user’s words nor in a trusted result, is REJECTED for the model to rewrite.',
      ),
  })
  .describe('Rules on the node’s final reply (its finish summary or text answer).');

/** `text` of a tool policy: what a write's free-text arguments may repeat (docs/flows.md, "Replies and untrusted text"). */
export const TextRuleSchema = z
  .strictObject({
    params: z
      .array(z.string().min(1))
      .min(1)
      .refine((names) => new Set(names).size === names.length, { error: 'expected each argument once' })
      .describe('The free-text arguments checked (a title, a subject, a body).'),
    untrusted: z
      .enum(['refuse'])
      .describe(
        'refuse: a write whose checked argument repeats a name (two or more capitalised words in a row) that stands only in untrusted text of this run, not in the user’s words nor in a trusted result, is REJECTED for the model to rewrite.',
      ),
  })
  .describe("Rules on a write's free-text arguments, as `reply` on a node's final reply.");

export type FromEntry = z.infer<typeof FromEntrySchema>;
export type Where = z.infer<typeof WhereSchema>;
export type FieldContract = z.infer<typeof FieldContractSchema>;
/** `text` as written in a tool policy. */
export type TextRule = z.infer<typeof TextRuleSchema>;
/** `trust` as written in a tool policy. */
export type ToolTrustPolicy = z.infer<typeof TrustSchema>;
/** How far a tool's results are trusted, as the contracts read it (`toolTrust`): the confidential parts left out. */
export type ToolTrust = 'trusted' | 'untrusted' | { untrusted: string[] };

/** The source kinds a contract accepts, as a list (`source: evidence` → `['evidence']`; none → `[]`). */
export function sourceKinds(contract: { source?: SourceKind | SourceKind[] | undefined }): SourceKind[] {
  const { source } = contract;
  if (source === undefined) return [];
  return Array.isArray(source) ? [...new Set(source)] : [source];
}

/** The tool named by a `from` entry. */
export function fromTool(entry: FromEntry): string {
  return typeof entry === 'string' ? entry : entry.tool;
}

/** The tools a contract's `from` names, each once, in order. */
export function fromTools(from: readonly FromEntry[] | undefined): string[] {
  return [...new Set((from ?? []).map(fromTool))];
}
