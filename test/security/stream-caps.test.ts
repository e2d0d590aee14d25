import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTokens } from '../../src/server/tokens.js';
import { ticketTools } from '../server/fixtures.js';
import { openEvents, reached, tempDir } from '../server/helpers.js';
import { errorOf, startTarget, type Target } from './helpers.js';

/**
 * Finding 9 of issue 27: the cap of event streams was counted per token *name*, so same-named tokens of
 * two tenants shared it (one tenant could starve the other), and each `HEAD` of the events route took
 * a slot for good. Now the cap counts per tenant and name, and HEAD opens no stream.
 */

const ACME = 'caps-acme-ops-token-000001';
const BETA = 'caps-beta-ops-token-000001';

const ASK = `turns:
  - { calls: [{ tool: builtin_node_follow_up, args: { question: Which printer? } }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;

let t: Target;
const runs: Record<string, string> = {};

beforeAll(async () => {
  const tools = ticketTools();
  const flowsDir = await tempDir({
    'ask.yaml':
      'id: ask\nlocale: en\nmodel: scripted:./turns.yaml\nnodes: [{ id: main, tools: [ticket_list] }]\n',
    'turns.yaml': ASK,
  });
  t = await startTarget({
    flowsDir,
    runtime: { tools: tools.tools },
    server: {
      maxStreamsPerToken: 1,
      tokens: parseTokens(
        [
          { token: ACME, role: 'operator', tenant: 'acme', name: 'ops' },
          { token: BETA, role: 'operator', tenant: 'beta', name: 'ops' },
        ],
        'test',
      ),
    },
  });
  for (const token of [ACME, BETA]) {
    const started = await t.call('POST', '/v1/runs', { token, json: { flowId: 'ask', input: 'x' } });
    runs[token] = ((await started.json()) as { runId: string }).runId;
    await reached(t.runtime, runs[token], 'run.suspended');
  }
});
afterAll(async () => {
  await t.stop();
});

describe('the cap of event streams', () => {
  it('counts per tenant and token name: a same-named token of another tenant has its own', async () => {
    const acme = await openEvents(t.url, runs[ACME] as string, { token: ACME });
    expect(acme.status).toBe(200);
    const beta = await openEvents(t.url, runs[BETA] as string, { token: BETA });
    expect(beta.status).toBe(200);
    const again = await t.call('GET', `/v1/runs/${runs[ACME]}/events`, { token: ACME });
    expect(await errorOf(again)).toMatchObject({ status: 429, code: 'TOO_MANY_STREAMS' });
    acme.close();
    beta.close();
  });

  it('is not taken by HEAD', async () => {
    // A slot is released once the server saw its stream close: retry for a while.
    const openWithin = async (ms: number): Promise<number> => {
      const end = Date.now() + ms;
      for (;;) {
        const stream = await openEvents(t.url, runs[ACME] as string, { token: ACME });
        stream.close();
        if (stream.status === 200 || Date.now() > end) return stream.status;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    expect(await openWithin(10_000)).toBe(200);
    for (let i = 0; i < 5; i += 1) {
      const head = await t.call('HEAD', `/v1/runs/${runs[ACME]}/events`, { token: ACME });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toContain('text/event-stream');
    }
    expect(await openWithin(10_000)).toBe(200);
  });
});
