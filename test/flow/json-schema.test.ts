import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { FLOW_SCHEMA_FILE, flowJsonSchema } from '../../src/flow/flow-json-schema.js';

const published = JSON.parse(await readFile(FLOW_SCHEMA_FILE, 'utf8')) as Record<string, unknown>;

describe('schema/flow.schema.json', () => {
  it('is up to date with src/domain/flow.ts (run `npm run schema` when this fails)', () => {
    expect(published).toEqual(flowJsonSchema());
  });

  it('accepts the example flows and rejects unknown keys', async () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const validate = ajv.compile(published);
    for (const file of [
      'examples/site-builder/flow.yaml',
      'examples/flows/delegating.yaml',
      'examples/flows/site-report.yaml',
    ]) {
      const flow: unknown = parse(await readFile(file, 'utf8'));
      expect(validate(flow), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(validate({ id: 'x', nodes: [{ id: 'a', toolz: [] }] })).toBe(false);
  });
});

describe('a flow schema with a $schema no validator knows', () => {
  it('is a problem of the flow naming the URI, not a crash', async () => {
    const { loadFlowText, FlowError } = await import('../../src/index.js');
    for (const uri of ['http://json-schema.org/draft-04/schema#', 'https://example.com/my-schema']) {
      const text = JSON.stringify({
        id: 'f',
        input: { $schema: uri, type: 'object' },
        nodes: [{ id: 'a', instructions: 'x' }],
      });
      const error: unknown = await loadFlowText(text).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(FlowError);
      expect(String((error as Error).message)).toContain(
        `input.$schema: expected a valid JSON Schema: unknown $schema "${uri}" (known: draft-07, 2019-09 or 2020-12)`,
      );
    }
  });
});
