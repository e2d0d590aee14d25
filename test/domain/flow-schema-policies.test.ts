import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  EdgeSchema,
  FlowSchema,
  isCodeNode,
  isStdioServer,
  MAX_EXPRESSION_LENGTH,
  NodeSchema,
  ParamContractSchema,
  RecoverSchema,
  ResponseContractSchema,
  ToolPolicySchema,
  VerifySchema,
} from '../../src/domain/flow.js';

/**
 * The flow format as zod schemas, continued from flow-schema.test.ts (docs/flows.md "Tool policies",
 * "aliases", "mcpServers"): tool policies, response contracts, verify and recover, the expression
 * limit, aliases, and how a server entry and a code node are told apart.
 */

const minimal = { id: 'f', nodes: [{ id: 'a' }] };

/** Each issue of a failed parse as `path: message` (the flow's own custom messages are exact). */
function issues(schema: z.ZodType, data: unknown): string[] {
  const parsed = schema.safeParse(data);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

function parseFlow(data: Record<string, unknown>) {
  return FlowSchema.parse({ ...minimal, ...data });
}

describe('tool policies', () => {
  it('are keyed by tool name and take the documented keys only', () => {
    const flow = parseFlow({
      tools: {
        web_site_create: {
          write: true,
          idempotent: true,
          params: { name: { source: 'user', required: true } },
          pending: "result.data.status = 'CREATING'",
          verify: { tool: 'web_site_get', args: { siteId: 'result.data.siteId' }, done: 'verify.ok' },
          recover: { tool: 'web_site_list', args: { name: 'args.name' }, found: 'verify.found' },
          response: { okPath: 'code', okValues: [0, '0', true, null] },
        },
      },
    });
    expect(Object.keys(flow.tools)).toEqual(['web_site_create']);
    expect(flow.tools.web_site_create?.response?.okValues).toEqual([0, '0', true, null]);
    expect(FlowSchema.safeParse({ ...minimal, tools: { 'cloud.x': {} } }).error?.issues).toMatchObject([
      {
        code: 'invalid_key',
        path: ['tools', 'cloud.x'],
        issues: [{ message: 'expected a tool name: 1-64 letters, digits, _ or -' }],
      },
    ]);
    expect(ToolPolicySchema.safeParse({ readonly: true }).success).toBe(false);
  });

  it('a response contract needs okPath and at least one scalar okValue', () => {
    expect(ResponseContractSchema.safeParse({ okPath: 'code', okValues: [] }).success).toBe(false);
    expect(ResponseContractSchema.safeParse({ okValues: [0] }).success).toBe(false);
    expect(ResponseContractSchema.safeParse({ okPath: 'code', okValues: [{ a: 1 }] }).success).toBe(false);
    expect(ResponseContractSchema.safeParse({ okPath: '', okValues: [0] }).success).toBe(false);
    expect(
      ResponseContractSchema.parse({ okPath: 'code', okValues: [0], codePath: 'c', messagePath: 'm' }),
    ).toEqual({ okPath: 'code', okValues: [0], codePath: 'c', messagePath: 'm' });
  });

  it('verify and recover name a tool, expressions per argument and their condition', () => {
    expect(VerifySchema.safeParse({ tool: 'get', args: {}, done: 'x' }).success).toBe(true);
    expect(VerifySchema.safeParse({ tool: 'get', args: {} }).success).toBe(false);
    expect(VerifySchema.safeParse({ tool: 'get', args: { id: '' }, done: 'x' }).success).toBe(false);
    expect(RecoverSchema.safeParse({ tool: 'list', args: {}, found: 'x' }).success).toBe(true);
    expect(RecoverSchema.safeParse({ tool: 'list', args: {}, done: 'x' }).success).toBe(false);
    expect(RecoverSchema.safeParse({ tool: 'a b', args: {}, found: 'x' }).success).toBe(false);
  });

  it('bound every expression to the expression limit', () => {
    const long = 'x'.repeat(MAX_EXPRESSION_LENGTH + 1);
    const limit = `expected a JSONata expression of at most ${MAX_EXPRESSION_LENGTH} characters`;
    expect(issues(ToolPolicySchema, { pending: long })).toEqual([`pending: ${limit}`]);
    expect(issues(ResponseContractSchema, { okPath: long, okValues: [0] })).toEqual([`okPath: ${limit}`]);
    expect(issues(EdgeSchema, { from: 'a', to: 'b', when: long })).toEqual([`when: ${limit}`]);
    expect(ToolPolicySchema.safeParse({ pending: long.slice(1) }).success).toBe(true);
  });

  it('a parameter contract takes required, a schema object and fields beside the provenance keys', () => {
    expect(
      ParamContractSchema.parse({
        source: ['user', 'evidence'],
        from: ['space_list'],
        required: true,
        schema: { type: 'string', maxLength: 3 },
        fields: { id: { source: 'evidence', from: ['space_list'] } },
      }),
    ).toEqual({
      source: ['user', 'evidence'],
      from: ['space_list'],
      required: true,
      schema: { type: 'string', maxLength: 3 },
      fields: { id: { source: 'evidence', from: ['space_list'] } },
    });
    expect(ParamContractSchema.safeParse({ required: 'yes' }).success).toBe(false);
    expect(ParamContractSchema.safeParse({ schema: [] }).success).toBe(false);
    expect(ParamContractSchema.safeParse({ fields: { a: { schema: {} } } }).success).toBe(false);
  });
});

describe('aliases and mcpServers', () => {
  it('aliases map any key to a tool name the model sees', () => {
    expect(parseFlow({ aliases: { 'cloud.list': 'cloud_list' } }).aliases).toEqual({
      'cloud.list': 'cloud_list',
    });
    expect(issues(FlowSchema, { ...minimal, aliases: { 'cloud.list': 'cloud.list' } })).toEqual([
      'aliases.cloud.list: expected a tool name: 1-64 letters, digits, _ or -',
    ]);
  });

  it('isStdioServer tells a stdio entry from an HTTP one by its command', () => {
    const flow = parseFlow({
      mcpServers: { local: { command: 'npx', args: ['srv'] }, remote: { url: 'https://mcp.example/mcp' } },
    });
    const { local, remote } = flow.mcpServers;
    expect(local && isStdioServer(local)).toBe(true);
    expect(remote && isStdioServer(remote)).toBe(false);
  });
});

describe('isCodeNode', () => {
  it('is true for a node with run or module, false for any other node', () => {
    expect(isCodeNode({ run: 'inline' })).toBe(true);
    expect(isCodeNode({ module: './steps.mjs#sum' })).toBe(true);
    expect(isCodeNode({})).toBe(false);
    expect(isCodeNode({ run: undefined, module: undefined })).toBe(false);
    expect(isCodeNode(NodeSchema.parse({ id: 'n', tools: ['x'] }))).toBe(false);
  });
});
