import { z } from 'zod';

/**
 * The flow file format (SPEC §3) as zod schemas. Unknown keys are errors everywhere (`strictObject`).
 * The JSON Schema published with the package is generated from these.
 */

const name = z.string().min(1);
const jsonSchemaObject = z.record(z.string(), z.unknown());

export const LimitsSchema = z.strictObject({
  maxRounds: z.int().positive().default(30),
  maxStalls: z.int().positive().default(5),
  fingerprintRepeats: z.int().positive().default(2),
  toolTimeoutMs: z.int().positive().default(30_000),
});

export const ProviderSchema = z.strictObject({
  type: z.literal('openai-compatible'),
  baseURL: z.url(),
  apiKeyEnv: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

export const StdioServerSchema = z.strictObject({
  command: name,
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  connectTimeoutMs: z.int().positive().optional(),
});

export const HttpServerSchema = z.strictObject({
  url: z.url(),
  headers: z.record(z.string(), z.string()).optional(),
  connectTimeoutMs: z.int().positive().optional(),
});

export const McpServerSchema = z.union([StdioServerSchema, HttpServerSchema]);

export const ParamContractSchema = z.strictObject({
  source: z.enum(['evidence', 'user']).optional(),
  from: z.array(name).min(1).optional(),
  path: z.string().min(1).optional(),
  required: z.boolean().optional(),
  enum: z.array(z.union([z.string(), z.number(), z.boolean()])).min(1).optional(),
  schema: jsonSchemaObject.optional(),
});

export const ResponseContractSchema = z.strictObject({
  okPath: z.string().min(1),
  okValues: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).min(1),
  codePath: z.string().min(1).optional(),
  messagePath: z.string().min(1).optional(),
});

export const VerifySchema = z.strictObject({
  tool: name,
  args: z.record(z.string(), z.string()),
  done: z.string().min(1),
});

export const RecoverSchema = z.strictObject({
  tool: name,
  args: z.record(z.string(), z.string()),
  found: z.string().min(1),
});

export const ToolPolicySchema = z.strictObject({
  write: z.boolean().optional(),
  params: z.record(z.string(), ParamContractSchema).optional(),
  response: ResponseContractSchema.optional(),
  pending: z.string().min(1).optional(),
  verify: VerifySchema.optional(),
  recover: RecoverSchema.optional(),
  idempotent: z.boolean().optional(),
});

export const OutputContractSchema = z.strictObject({
  required: z.boolean().default(false),
  sources: z.array(z.enum(['evidence', 'user', 'node', 'model'])).min(1),
  from: z.array(name).optional(),
  description: z.string().optional(),
});

export const NodeSchema = z.strictObject({
  id: name,
  instructions: z.string().default(''),
  tools: z.array(name).default([]),
  outputs: z.record(z.string(), OutputContractSchema).default({}),
  delegates: z.array(z.string().min(1)).default([]),
  limits: LimitsSchema.partial().optional(),
});

export const EdgeSchema = z.strictObject({
  from: name,
  to: name,
  when: z.string().min(1).optional(),
});

export const FlowSchema = z.strictObject({
  id: name,
  version: z.union([z.int(), z.string().min(1)]).default(1),
  description: z.string().optional(),
  locale: z.enum(['zh-CN', 'en']).default('zh-CN'),
  model: z.string().min(1).optional(),
  providers: z.record(z.string(), ProviderSchema).optional(),
  mcpServers: z.record(z.string(), McpServerSchema).default({}),
  limits: LimitsSchema.default({ maxRounds: 30, maxStalls: 5, fingerprintRepeats: 2, toolTimeoutMs: 30_000 }),
  aliases: z.record(z.string(), z.string()).default({}),
  input: jsonSchemaObject.optional(),
  tools: z.record(z.string(), ToolPolicySchema).default({}),
  nodes: z.array(NodeSchema).min(1),
  edges: z.array(EdgeSchema).default([]),
});

export type Limits = z.infer<typeof LimitsSchema>;
export type ProviderConfig = z.infer<typeof ProviderSchema>;
export type StdioServerConfig = z.infer<typeof StdioServerSchema>;
export type HttpServerConfig = z.infer<typeof HttpServerSchema>;
export type McpServerConfig = z.infer<typeof McpServerSchema>;
export type ParamContract = z.infer<typeof ParamContractSchema>;
export type ResponseContract = z.infer<typeof ResponseContractSchema>;
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
