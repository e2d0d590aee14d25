import { describe, expect, it } from 'vitest';
import type { ToolDescriptor } from '../../src/domain/tool.js';
import { MemoryLogger } from '../../src/log/logger.js';
import type { McpCallResult } from '../../src/mcp/types.js';
import { structuredResultProblem } from '../../src/tools/structured-result.js';

// Direct tests of src/tools/structured-result.ts (docs/observations.md, MCP_OUTPUT_SCHEMA_MISMATCH).

describe('structuredResultProblem', () => {
  const schema = {
    type: 'object',
    properties: { temperature: { type: 'number' }, unit: { enum: ['C', 'F'] } },
    required: ['temperature'],
  };
  const tool = (outputSchema?: Record<string, unknown>): ToolDescriptor => ({
    name: 'weather',
    description: 'Weather',
    inputSchema: { type: 'object' },
    kind: 'mcp',
    ...(outputSchema ? { outputSchema } : {}),
  });
  const result = (structuredContent: unknown, isError = false): McpCallResult => ({
    content: [{ type: 'text', text: 'x' }],
    isError,
    ...(structuredContent === undefined ? {} : { structuredContent }),
  });
  const problem = (t: ToolDescriptor, r: McpCallResult, locale: 'en' | 'zh-CN' = 'en') =>
    structuredResultProblem(t, r, locale, new MemoryLogger());

  it('null without an outputSchema, whatever the result', () => {
    expect(problem(tool(), result(undefined))).toBeNull();
    expect(problem(tool(), result('not an object'))).toBeNull();
  });

  it('null for an isError result, even without structured content', () => {
    expect(problem(tool(schema), result(undefined, true))).toBeNull();
    expect(problem(tool(schema), result({ temperature: 'hot' }, true))).toBeNull();
  });

  it('null when the structured content satisfies the schema', () => {
    expect(problem(tool(schema), result({ temperature: 21.5, unit: 'C' }))).toBeNull();
  });

  it('says the structured content is missing', () => {
    expect(problem(tool(schema), result(undefined))).toBe('the result has no structuredContent');
    expect(problem(tool(schema), result(undefined), 'zh-CN')).toBe('结果没有 structuredContent');
  });

  it('a null structured content is content, checked against the schema', () => {
    expect(problem(tool(schema), result(null))).toBe('must be of type object');
  });

  it('names the broken rules, joined in the locale', () => {
    expect(problem(tool(schema), result({ unit: 'K' }))).toBe(
      'missing field temperature; unit: must be one of: C, F',
    );
    expect(problem(tool(schema), result({ unit: 'K' }), 'zh-CN')).toBe(
      '缺少字段 temperature；unit: 取值应为以下之一：C、F',
    );
  });
});
