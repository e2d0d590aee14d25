import { z } from 'zod';
import {
  HttpServerSchema,
  McpAuthSchema,
  McpServerSchema,
  NodePromptSchema,
  StartersSchema,
  StdioServerSchema,
} from './flow-mcp.js';
export {
  EdgeSchema,
  edgeTargets,
  ID_PATTERN,
  MapSchema,
  MAX_EXPRESSION_LENGTH,
  MAX_EDGE_TARGETS,
  MAX_MAP_CONCURRENCY,
  MAX_MAP_ITEMS,
  MAX_RUN_BRANCHES,
} from './flow-graph.js';
import { EdgeSchema, ID_PATTERN, MapSchema, MAX_EXPRESSION_LENGTH } from './flow-graph.js';
import { ApprovalPolicySchema } from './flow-approval.js';
import { NODE_KINDS, nodeKindOf } from './node-kinds.js';
import {
  FieldContractSchema,
  provenanceKeys,
  ReplySchema,
  TextRuleSchema,
  TOOL_NAME_PATTERN,
  TrustSchema,
} from './flow-provenance.js';
export {
  DERIVE_OPS,
  DerivationSchema,
  DeriveOperandSchema,
  FieldContractSchema,
  FromEntrySchema,
  fromTool,
  fromTools,
  SOURCE_KINDS,
  sourceKinds,
  TOOL_NAME_PATTERN,
  TrustSchema,
  UNTRUSTED_MODES,
  WhereSchema,
} from './flow-provenance.js';
export type {
  DeriveOp,
  DeriveOperand,
  Derivation,
  FieldContract,
  FromEntry,
  SourceKind,
  ToolTrust,
  UntrustedMode,
  Where,
} from './flow-provenance.js';

export {
  HttpServerSchema,
  McpAuthSchema,
  McpRootSchema,
  McpServerSchema,
  StdioServerSchema,
} from './flow-mcp.js';

/**
 * The flow file format (docs/flows.md) as zod schemas. Unknown keys are errors everywhere (`strictObject`).
 * The JSON Schema published with the package (schema/flow.schema.json) is generated from these, so the
 * descriptions here are what editors show. Cross-field rules (ids exist, expressions parse, …) are
 * checked after parsing by src/flow/semantic-*.ts.
 */

/** `<provider>:<model id>`, e.g. `openai:gpt-4.1` or `scripted:./turns.yaml`. */
export const MODEL_PATTERN = /^[A-Za-z][A-Za-z0-9_-]*:.+$/;
/** A code node's `module`: a relative path (no `#`) and an export name. */
export const CODE_MODULE_PATTERN = /^\.\/[^#]+#[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The run input schema of a flow that declares no `input`: `{ text: string }`. */
export const DEFAULT_INPUT_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
});

const id = z.string().regex(ID_PATTERN, { error: 'expected an id: a letter, then letters, digits, _ or -' });
const toolName = z
  .string()
  .regex(TOOL_NAME_PATTERN, { error: 'expected a tool name: 1-64 letters, digits, _ or -' });
const text = z.string().min(1);
const jsonata = (over: string) =>
  text
    .max(MAX_EXPRESSION_LENGTH, {
      error: `expected a JSONata expression of at most ${MAX_EXPRESSION_LENGTH} characters`,
    })
    .describe(`JSONata expression over ${over}`);
const jsonSchemaObject = z.record(z.string(), z.unknown());
const positive = z.int().positive();

export const LimitsSchema = z
  .strictObject({
    maxRounds: positive.default(30).describe('Model calls a node may make before it fails with ROUND_LIMIT.'),
    maxStalls: positive.default(5).describe('Consecutive stalls after which a node fails with NO_PROGRESS.'),
    fingerprintRepeats: positive
      .default(2)
      .describe(
        'How often one tool may be called with the same arguments in a node; one more trips FINGERPRINT_TRIP.',
      ),
    toolTimeoutMs: positive
      .default(30_000)
      .describe(
        'Timeout of one tool call in milliseconds; an MCP progress notification starts it afresh (up to `toolTotalTimeoutMs`).',
      ),
    toolTotalTimeoutMs: positive
      .optional()
      .describe(
        'The longest an MCP call reporting progress may run, in milliseconds (default 10 × toolTimeoutMs).',
      ),
    contextTokens: positive
      .optional()
      .describe(
        "Token budget of one model request; over it the conversation is compacted. Default: from the model's known context window, none for other models.",
      ),
    maxOutputTokens: positive
      .optional()
      .describe('Output token limit of one model call, passed to the provider.'),
    maxTokens: positive
      .optional()
      .describe(
        'Input + output tokens the run may spend (all nodes, child runs included); reaching it fails the node with BUDGET_EXCEEDED.',
      ),
    maxCost: z
      .number()
      .positive()
      .optional()
      .describe(
        'Cost the run may spend, from `prices` (all nodes, child runs included); reaching it fails the node with BUDGET_EXCEEDED.',
      ),
  })
  .describe('Loop limits of each node (docs/flows.md, `limits`).');

/** A node's `limits`: every key optional, none defaulted, so a key left out keeps the flow's value. */
const NodeLimitsSchema = z.strictObject(
  Object.fromEntries(
    Object.entries(LimitsSchema.shape).map(([key, field]) => {
      const bare = field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType) : field;
      return [key, bare.optional().describe(field.description ?? key)];
    }),
  ) as unknown as { [K in keyof Limits]-?: z.ZodOptional<z.ZodNumber> },
);

export const PriceSchema = z
  .strictObject({
    input: z.number().nonnegative().describe('Price of one million input tokens.'),
    output: z.number().nonnegative().describe('Price of one million output tokens.'),
  })
  .describe('The price of a model, per million tokens, in the currency `maxCost` is given in.');

export const ProviderSchema = z
  .strictObject({
    type: z.literal('openai-compatible'),
    baseURL: z.url(),
    apiKeyEnv: text.optional().describe('Name of the environment variable holding the API key.'),
    headers: z.record(z.string(), z.string()).optional(),
  })
  .describe('An OpenAI-compatible model endpoint (Qwen/DashScope, DeepSeek, Ollama, vLLM).');

export const ParamContractSchema = z
  .strictObject({
    ...provenanceKeys,
    required: z
      .boolean()
      .optional()
      .describe(
        'The argument must be present (in addition to the tool schema); an empty value then needs provenance too.',
      ),
    schema: jsonSchemaObject
      .optional()
      .describe("JSON Schema that tightens the tool's own schema for this argument."),
    fields: z
      .record(z.string(), FieldContractSchema)
      .optional()
      .describe(
        'Per field of an object argument (or of each object element of a list argument): its own provenance contract, checked on its own.',
      ),
  })
  .describe('Provenance and policy of one tool argument.');

export const ResponseContractSchema = z
  .strictObject({
    okPath: jsonata('the result').describe('JSONata path to the field telling success, e.g. `code`.'),
    okValues: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).min(1),
    codePath: jsonata('the result').optional().describe('JSONata path to the downstream error code.'),
    messagePath: jsonata('the result').optional().describe('JSONata path to the downstream error message.'),
  })
  .describe('How to tell a business failure in a successful MCP result (TOOL_BUSINESS_FAILED).');

export const VerifySchema = z
  .strictObject({
    tool: toolName.describe('A read tool the model calls to confirm the pending write.'),
    args: z.record(z.string(), jsonata('{args, result, key}')),
    done: jsonata('{args, result, key, verify}'),
  })
  .describe('Confirms that a pending write is done.');

export const RecoverSchema = z
  .strictObject({
    tool: toolName.describe('A read tool the runtime calls (look-back) when a write was interrupted.'),
    args: z.record(z.string(), jsonata('{args, key}')),
    found: jsonata('{args, key, verify}'),
  })
  .describe("Finds an interrupted write's effect.");

export const ToolPolicySchema = z
  .strictObject({
    write: z
      .boolean()
      .optional()
      .describe('Default: from MCP annotations (readOnlyHint true → read, else write).'),
    params: z.record(z.string(), ParamContractSchema).optional(),
    trust: TrustSchema.optional(),
    text: TextRuleSchema.optional(),
    response: ResponseContractSchema.optional(),
    pending: jsonata('{args, result}')
      .optional()
      .describe('True when the write was accepted but is not done yet.'),
    verify: VerifySchema.optional(),
    recover: RecoverSchema.optional(),
    idempotent: z
      .boolean()
      .optional()
      .describe('The server deduplicates by the idempotency key, so re-sending is safe.'),
    approval: ApprovalPolicySchema.optional(),
  })
  .describe('Policy of one tool; the key is the tool name as the model sees it.');

export const OutputContractSchema = z
  .strictObject({
    required: z.boolean().default(false).describe('builtin_node_finish is rejected until it is written.'),
    sources: z
      .array(z.enum(['evidence', 'user', 'node', 'model', 'code']))
      .min(1)
      .describe(
        "Accepted source types; `code` only (and filled in when left out) for a code node's outputs, which come from its function.",
      ),
    from: z
      .array(toolName)
      .min(1)
      .optional()
      .describe('With source evidence: the tools whose evidence may be cited.'),
    match: z
      .enum(['equals', 'contains'])
      .optional()
      .describe(
        'With source evidence: `contains` (default) — a string value may stand inside a string of the cited result, at word boundaries; `equals` — it must equal a value of the result.',
      ),
    description: z.string().optional(),
    schema: jsonSchemaObject
      .optional()
      .describe(
        'JSON Schema the value must satisfy (a zod schema in code flows); a value breaking it is REJECTED OUTPUT_SCHEMA_MISMATCH.',
      ),
  })
  .describe('An output key of a node, where its value may come from, and its type.');

export const NodeSchema = z
  .strictObject({
    id,
    instructions: z
      .string()
      .default('')
      .describe('Shown to the model; may reference {{input.<field>}} and {{nodes.<id>.outputs.<key>}}.'),
    tools: z.array(toolName).default([]).describe('Tools visible in this node besides the builtins.'),
    outputs: z.record(id, OutputContractSchema).default({}),
    delegates: z
      .array(text)
      .default([])
      .describe("Flow files (relative to this flow's folder) this node may delegate to."),
    prompt: NodePromptSchema.optional(),
    resources: z
      .array(id)
      .optional()
      .describe(
        'MCP servers (keys of mcpServers) whose resources this node may list and read: builtin_resource_list and builtin_resource_read are offered.',
      ),
    limits: NodeLimitsSchema.optional().describe("Overrides of the flow's limits for this node."),
    run: z
      .literal('inline')
      .optional()
      .describe(
        'Set by flows written in code whose node gives a function as `run`: a code node (docs/flows.md, "Code nodes").',
      ),
    module: z
      .string()
      .regex(CODE_MODULE_PATTERN, {
        error:
          "expected <relative path of an ES module>#<export name>, e.g. ./steps.mjs#sum (inside the flow's folder)",
      })
      .optional()
      .describe(
        "A code node: `./file.mjs#name`, a function exported by an ES module in the flow's folder. Only in flows loaded from files or the library, never in flows sent over HTTP.",
      ),
    map: MapSchema,
    answer: z
      .enum(['text'])
      .optional()
      .describe(
        'text: a model turn with text and no tool call ends the node once its required outputs are written (the text is its answer).',
      ),
    sees: z
      .enum(['request'])
      .optional()
      .describe(
        "request: the node's model context holds only the user's request (no tool results or outputs of earlier nodes); its outputs decide, through edges, what the run does afterwards.",
      ),
    reply: ReplySchema.optional(),
  })
  .describe(`A node of one kind: ${NODE_KINDS.map((kind) => kind.summary).join('; ')}.`);

export const FlowSchema = z
  .strictObject({
    $schema: z.string().optional().describe('The JSON Schema of this format, for editors; ignored.'),
    id,
    version: z
      .union([positive, text], { error: 'expected a positive integer or a non-empty string' })
      .default(1),
    description: z.string().optional(),
    locale: z.enum(['zh-CN', 'en']).default('zh-CN').describe('Language of every text shown to the model.'),
    model: z
      .string()
      .regex(MODEL_PATTERN, {
        error: 'expected <provider>:<model id>, e.g. openai:gpt-4.1 or scripted:./turns.yaml',
      })
      .optional()
      .describe("<provider>:<model id>; `scripted:<file>` resolves against the flow's folder."),
    providers: z.record(id, ProviderSchema).optional(),
    prices: z
      .record(
        z.string().regex(MODEL_PATTERN, { error: 'expected <provider>:<model id>, e.g. openai:gpt-4.1' }),
        PriceSchema,
      )
      .optional()
      .describe('Prices per model (`<provider>:<model id>`), for `limits.maxCost`.'),
    mcpServers: z.record(id, McpServerSchema).default({}),
    starters: StartersSchema.optional(),
    sandboxExpressions: z
      .boolean()
      .optional()
      .describe(
        "Evaluate this flow's JSONata expressions in a worker with a memory ceiling and a 1 s deadline, without $eval; flows sent over HTTP always are.",
      ),
    limits: LimitsSchema.prefault({}),
    aliases: z
      .record(z.string(), toolName)
      .default({})
      .describe('`<server>.<tool>: <name the model sees>`; needed when two servers export one tool name.'),
    input: jsonSchemaObject
      .default(() => ({ ...DEFAULT_INPUT_SCHEMA }))
      .describe('JSON Schema of the run input; default: {text: string}.'),
    tools: z.record(toolName, ToolPolicySchema).default({}),
    nodes: z.array(NodeSchema).min(1).describe('The first node runs first.'),
    edges: z
      .array(EdgeSchema)
      .default([])
      .describe(
        'The first edge (in file order) whose `when` holds is taken; a node with several incoming edges is a join.',
      ),
  })
  .describe('A g2rain-agent-runtime flow (docs/flows.md).');

export type Limits = z.infer<typeof LimitsSchema>;
export type ProviderConfig = z.infer<typeof ProviderSchema>;
export type Price = z.infer<typeof PriceSchema>;
export type StdioServerConfig = z.infer<typeof StdioServerSchema>;
export type HttpServerConfig = z.infer<typeof HttpServerSchema>;
export type McpAuthConfig = z.infer<typeof McpAuthSchema>;
export type McpServerConfig = z.infer<typeof McpServerSchema>;
export type ParamContract = z.infer<typeof ParamContractSchema>;
export type ResponseContract = z.infer<typeof ResponseContractSchema>;
export type VerifyPolicy = z.infer<typeof VerifySchema>;
export type RecoverPolicy = z.infer<typeof RecoverSchema>;
export type ToolPolicy = z.infer<typeof ToolPolicySchema>;
export type OutputContract = z.infer<typeof OutputContractSchema>;
export type FlowNode = z.infer<typeof NodeSchema>;
export type FlowEdge = z.infer<typeof EdgeSchema>;
/** A validated flow with every default applied. */
export type Flow = z.infer<typeof FlowSchema>;
/** A flow as written by a person (defaults optional). */
export type FlowInput = z.input<typeof FlowSchema>;

/** True for a stdio server entry. */
export function isStdioServer(server: McpServerConfig): server is StdioServerConfig {
  return 'command' in server;
}

/** True for a code node (`run` in a flow written in code, or `module`): it runs a function, not a model loop. */
export function isCodeNode(node: Pick<FlowNode, 'run' | 'module'>): boolean {
  return nodeKindOf(node).name === 'code';
}
