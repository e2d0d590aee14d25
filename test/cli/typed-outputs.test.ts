import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { World, ensureBuilt } from './helpers/cli.js';

/** Typed outputs through the CLI as a subprocess: `run --json` keeps value types, `validate --json` publishes schemas. */
const FLOW = `id: counter
locale: en
model: scripted:./turns.yaml
nodes:
  - id: count
    outputs:
      count: { required: true, sources: [model], schema: { type: integer, minimum: 0 } }
      detail: { sources: [model], schema: { type: object, properties: { total: { type: integer } } } }
      note: { sources: [model], description: free text }
`;

const TURNS = `turns:
  - { calls: [{ tool: builtin_output_set, args: { key: count, value: many, sourceType: model } }] }
  - calls:
      - { tool: builtin_output_set, args: { key: count, value: 3, sourceType: model } }
      - { tool: builtin_output_set, args: { key: detail, value: { total: 3 }, sourceType: model } }
      - { tool: builtin_node_finish, args: { summary: counted } }
`;

describe('cli: typed outputs', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('run --json: "many" is rejected, 3 is stored, and the summary carries a number and an object', async () => {
    w.write('flow.yaml', FLOW);
    w.write('turns.yaml', TURNS);
    const r = await w.cli(['run', 'flow.yaml', '--input', 'count them', '--json', '--trace', w.traceFile]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({
      status: 'completed',
      outputs: { count: { count: 3, detail: { total: 3 } } },
    });
    const rejected = w.traceEvents().find((e) => e.type === 'tool.invoked' && e.outcome === 'REJECTED');
    expect(rejected).toMatchObject({
      errorCode: 'OUTPUT_SCHEMA_MISMATCH',
      message: expect.stringContaining(
        'The value "many" of output [count] does not match its schema: must be of type integer',
      ),
    });
  });

  it('validate --json publishes each node’s outputs with their schemas and a schema of the summary’s outputs', async () => {
    w.write('flow.yaml', FLOW);
    w.write('turns.yaml', TURNS);
    const r = await w.cli(['validate', 'flow.yaml', '--json'], { db: false });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toEqual({
      file: 'flow.yaml',
      valid: true,
      problems: [],
      warnings: [],
      flow: {
        flowId: 'counter',
        version: 1,
        input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        nodes: [
          {
            id: 'count',
            outputs: {
              count: { required: true, sources: ['model'], schema: { type: 'integer', minimum: 0 } },
              detail: {
                required: false,
                sources: ['model'],
                schema: { type: 'object', properties: { total: { type: 'integer' } } },
              },
              note: { required: false, sources: ['model'], description: 'free text' },
            },
          },
        ],
        outputsSchema: {
          type: 'object',
          properties: {
            count: {
              type: 'object',
              properties: {
                count: { type: 'integer', minimum: 0 },
                detail: { type: 'object', properties: { total: { type: 'integer' } } },
                note: {},
              },
              required: ['count'],
              additionalProperties: false,
            },
          },
          additionalProperties: false,
        },
      },
    });
  });

  it('validate --json on an invalid output schema: valid false, the problem located, exit 2', async () => {
    w.write('bad.yaml', FLOW.replace('type: integer, minimum: 0', 'type: integr'));
    w.write('turns.yaml', TURNS);
    const r = await w.cli(['validate', 'bad.yaml', '--json'], { db: false });
    expect(r.code).toBe(2);
    const report = r.json as { valid: boolean; problems: { path: string; line?: number; message: string }[] };
    expect(report.valid).toBe(false);
    expect(report.problems).toEqual([
      expect.objectContaining({
        path: 'nodes[0].outputs.count.schema.type',
        line: 7,
        message: expect.stringContaining('expected a valid JSON Schema'),
      }),
    ]);
    expect(r.stderr).toContain('bad.yaml: 1 problem');
  });
});
