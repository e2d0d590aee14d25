import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/server/json-depth.js';
import { FLOW_FILES, ticketTools } from './fixtures.js';
import { TOKENS, startServer, tempDir, type TestServer } from './helpers.js';

/**
 * A JSON body nesting a few thousand arrays/objects overflowed the stack of a recursive validator
 * (500). Every JSON body is now refused above MAX_JSON_DEPTH levels with a 400 naming the limit.
 */

let t: TestServer;

beforeAll(async () => {
  t = await startServer({ flowsDir: await tempDir(FLOW_FILES), runtime: { tools: ticketTools().tools } });
});
afterAll(async () => {
  await t.stop();
});

/** `levels` nested arrays and objects around a string, as JSON text. */
function deep(levels: number): string {
  let text = '"x"';
  for (let i = 0; i < levels; i++) text = i % 2 === 0 ? `[${text}]` : `{"k":${text}}`;
  return text;
}

async function post(path: string, body: string, token: string = TOKENS.admin): Promise<Response> {
  return t.call('POST', path, { token, body, headers: { 'content-type': 'application/json' } });
}

describe('JSON bodies nesting too deep', () => {
  it('answers 400 naming the limit on every JSON route, never 500', async () => {
    const started = await post('/v1/runs', JSON.stringify({ flowId: 'ask', input: 'x' }));
    expect(started.status).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    const bodies: [string, string][] = [
      ['/v1/runs', `{"flowId":"tickets","input":{"text":"x","deep":${deep(3000)}}}`],
      ['/v1/runs', `{"flow":${deep(3000)},"input":"x"}`],
      ['/v1/flows', deep(3000)],
      [`/v1/runs/${runId}/answer`, `{"text":"x","extra":${deep(5000)}}`],
      [`/v1/runs/${runId}/approval`, `{"decision":"approve","comment":${deep(3000)}}`],
      [`/v1/runs/${runId}/retry`, `{"model":${deep(3000)}}`],
      [`/v1/runs/${runId}/cancel`, deep(MAX_JSON_DEPTH + 1)],
    ];
    for (const [path, body] of bodies) {
      const response = await post(path, body);
      expect(response.status, path).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code, path).toBe('BAD_REQUEST');
      expect(error.message, path).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    }
    const health = await fetch(`${t.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('accepts bodies at the limit, and counts no brackets inside strings', async () => {
    expect(nestsDeeperThan(deep(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(deep(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(JSON.stringify({ text: '['.repeat(5000) + '\\"{{' }), 10)).toBe(false);
    const input = { text: `${'[{'.repeat(3000)}"`, nested: JSON.parse(deep(50)) as unknown };
    const response = await post('/v1/runs', JSON.stringify({ flowId: 'quick', input }));
    expect(response.status).toBe(201);
  });
});
