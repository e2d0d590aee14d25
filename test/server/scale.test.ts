import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_FILES, ticketTools } from './fixtures.js';
import { TOKENS, settled, startRun, openApp, tempDir, type TestApp } from './helpers.js';

/** Many runs started at once all complete (runs execute in the server's background). */

let t: TestApp;

beforeAll(async () => {
  const dir = await tempDir(FLOW_FILES);
  t = await openApp({
    flowsDir: dir,
    runtime: { tools: ticketTools().tools, store: `sqlite:${dir}/runs.db` },
  });
});
afterAll(async () => {
  await t.stop();
});

describe('200 concurrent runs', () => {
  it('are all accepted at once and all complete', async () => {
    const ids = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        startRun(t, TOKENS.operator, { flowId: 'quick', input: `run ${i}` }),
      ),
    );
    expect(new Set(ids).size).toBe(200);
    await Promise.all(ids.map((id) => settled(t.runtime, id)));
    const completed = (await (
      await t.call('GET', '/v1/runs?status=completed&limit=1000', { token: TOKENS.viewer })
    ).json()) as { runId: string }[];
    expect(new Set(completed.map((r) => r.runId))).toEqual(new Set(ids));
  });
});
