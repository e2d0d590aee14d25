import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateAgainst } from '../../src/flow/json-schema.js';
import { evaluate } from '../../src/tools/expressions.js';
import { checkSchema } from '../../src/tools/guards/schema-validation.js';
import { quietLogger, tempDir } from '../server/helpers.js';
import { SEC, errorOf, startTarget, type Target } from './helpers.js';

/**
 * Finding F2 of issue 13: a tenant's admin uploaded a flow whose input schema had `pattern: ^(a+)+$`;
 * an operator started it with "a"×28 + "!" and the event loop was blocked for seconds (/healthz dead),
 * doubling per character. Flow regexes now fall back to V8's linear engine, and flows sent over HTTP
 * may use only patterns that can run in linear time.
 */

const EVIL = '^(a+)+$';
const SLOW_TEXT = `${'a'.repeat(28)}!`;

function flowWith(
  input: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: 'regex-probe',
    locale: 'en',
    model: 'openai:gpt-4.1',
    input,
    nodes: [{ id: 'main' }],
    ...extra,
  };
}

const textPattern = (pattern: string): Record<string, unknown> => ({
  type: 'object',
  properties: { text: { type: 'string', pattern } },
  required: ['text'],
});

let target: Target;

beforeAll(async () => {
  const flowsDir = await tempDir({
    'evil.json': JSON.stringify(flowWith(textPattern(EVIL), { id: 'evil-input' })),
    'letters.json': JSON.stringify(flowWith(textPattern('^\\p{L}+$'), { id: 'letters' })),
    'backref.json': JSON.stringify(flowWith(textPattern('^(a)\\1$'), { id: 'backref' })),
  });
  target = await startTarget({ flowsDir });
});
afterAll(async () => {
  await target.stop();
});

/** Runs `act` while /healthz is asked every 20 ms; the slowest /healthz answer and act's duration. */
async function whileWatchingHealth(act: () => Promise<void>): Promise<{ slowest: number; took: number }> {
  let done = false;
  let slowest = 0;
  const watching = (async () => {
    while (!done) {
      const asked = Date.now();
      expect((await fetch(`${target.url}/healthz`)).status).toBe(200);
      slowest = Math.max(slowest, Date.now() - asked);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const started = Date.now();
  try {
    await act();
  } finally {
    done = true;
    await watching;
  }
  const took = Date.now() - started;
  return { slowest, took };
}

describe('regular expressions from flows cannot stop the server', () => {
  it('the uploaded flow is started with input built to backtrack: answered fast, /healthz alive', async () => {
    const { slowest, took } = await whileWatchingHealth(async () => {
      const uploaded = await target.call('POST', '/v1/flows', {
        token: SEC.betaAdmin,
        json: flowWith(textPattern(EVIL)),
      });
      expect(uploaded.status).toBe(201);
      const refused = await errorOf(
        await target.call('POST', '/v1/runs', {
          token: SEC.betaOperator,
          json: { flowId: 'regex-probe', input: SLOW_TEXT },
        }),
      );
      expect(refused).toMatchObject({ status: 400, code: 'INPUT_INVALID' });
      expect(refused.problems?.join('\n')).toMatch(/text: must match pattern/);
    });
    expect(took).toBeLessThan(1_000);
    expect(slowest).toBeLessThan(1_000);
  });

  it('a trusted flow keeps its pattern, and an input built to backtrack is refused fast (/healthz alive)', async () => {
    const { slowest, took } = await whileWatchingHealth(async () => {
      const refused = await errorOf(
        await target.call('POST', '/v1/runs', {
          token: SEC.betaOperator,
          json: { flowId: 'evil-input', input: SLOW_TEXT },
        }),
      );
      expect(refused).toMatchObject({ status: 400, code: 'INPUT_INVALID' });
    });
    expect(took).toBeLessThan(1_000);
    expect(slowest).toBeLessThan(1_000);
  });

  it("bounds params' schemas (model-written arguments) and JSONata regex literals too", async () => {
    const started = Date.now();
    const check = checkSchema({ type: 'string', pattern: EVIL }, SLOW_TEXT, 'en', quietLogger);
    expect(check.violations).toHaveLength(1);
    expect(await evaluate('$match(x, /(a+)+$/)', { x: SLOW_TEXT })).toBeUndefined();
    expect(await evaluate('$contains(x, /(a|aa)*b/)', { x: SLOW_TEXT })).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('ordinary patterns mean what they meant: \\p{L}, character classes, counted repetition', () => {
    const letters = textPattern('^\\p{L}+$');
    expect(validateAgainst(letters, { text: 'Grüße中文𠀀' })).toEqual([]);
    expect(validateAgainst(letters, { text: 'abc1' })).toHaveLength(1);
    const code = textPattern('^[A-Z]{2}-\\d{4}$');
    expect(validateAgainst(code, { text: 'AB-1234' })).toEqual([]);
    expect(validateAgainst(code, { text: 'AB-123' })).toHaveLength(1);
    expect(validateAgainst(textPattern(EVIL), { text: 'aaaa' })).toEqual([]);
    expect(checkSchema({ type: 'string', pattern: '^\\p{Lu}' }, 'Émile', 'en', quietLogger)).toEqual({
      missing: [],
      violations: [],
    });
  });
});

describe('flows sent over HTTP may use only regexes that run in linear time', () => {
  async function refusal(flow: Record<string, unknown>): Promise<string> {
    const inline = await errorOf(
      await target.call('POST', '/v1/runs', { token: SEC.acmeAdmin, json: { flow, input: 'x' } }),
    );
    expect(inline).toMatchObject({ status: 400, code: 'FLOW_INVALID' });
    const uploaded = await errorOf(
      await target.call('POST', '/v1/flows', { token: SEC.acmeAdmin, json: flow }),
    );
    expect(uploaded).toMatchObject({ status: 400, code: 'FLOW_INVALID' });
    return uploaded.problems?.join('\n') ?? '';
  }

  it('refuses backreferences, lookarounds, \\p{…} and large counted repetitions in the input schema, naming where', async () => {
    const problems = await refusal(
      flowWith({
        type: 'object',
        properties: {
          a: { type: 'string', pattern: '^(a+)+\\1$' },
          b: { type: 'string', pattern: '^(?=a)a$' },
          c: { type: 'string', pattern: '^\\p{L}+$' },
          d: { type: 'string', pattern: '^x{1,64}$' },
          e: { type: 'object', patternProperties: { '^(?!x)': {} } },
          f: { type: 'string', const: 'fine', pattern: '^[a-z]{1,16}$' },
        },
      }),
    );
    for (const where of ['a.pattern', 'b.pattern', 'c.pattern', 'd.pattern', 'e.patternProperties'])
      expect(problems).toContain(`input.properties.${where}`);
    expect(problems).not.toContain('properties.f');
    expect(problems).toMatch(/linear time/);
  });

  it("refuses such patterns in params' schemas and in JSONata regex literals", async () => {
    const problems = await refusal(
      flowWith(textPattern('^[a-z]+$'), {
        tools: {
          ticket_update: {
            write: true,
            params: { id: { schema: { type: 'string', pattern: '^(\\w+)\\1$' } } },
            pending: '$contains(result.status, /(a+)+$/i)',
            verify: { tool: 'ticket_get', args: { id: 'args.id' }, done: '$contains(result.s, /(?<=x)y/)' },
          },
        },
        nodes: [{ id: 'main', tools: ['ticket_update', 'ticket_get'] }],
        edges: [],
      }),
    );
    expect(problems).toContain('tools.ticket_update.params.id.schema.pattern');
    expect(problems).toContain('tools.ticket_update.pending');
    expect(problems).toContain('tools.ticket_update.verify.done');
  });

  it('accepts ordinary patterns and regex literals; trusted flows keep any pattern', async () => {
    const flow = flowWith(textPattern('^[A-Za-z0-9_.-]{1,16}@(?<host>[a-z]+)$'), {
      id: 'regex-fine',
      edges: [],
      nodes: [{ id: 'main' }, { id: 'next' }],
    });
    (flow.edges as unknown[]).push({ from: 'main', to: 'next', when: '$contains(outputs.x, /(a+)+$/)' });
    const uploaded = await target.call('POST', '/v1/flows', { token: SEC.acmeAdmin, json: flow });
    expect(uploaded.status).toBe(201);
    for (const [flowId, input] of [
      ['letters', 'abc1'],
      ['backref', 'ab'],
    ] as const) {
      const refused = await errorOf(
        await target.call('POST', '/v1/runs', { token: SEC.betaOperator, json: { flowId, input } }),
      );
      expect(refused, flowId).toMatchObject({ status: 400, code: 'INPUT_INVALID' });
    }
  });
});
