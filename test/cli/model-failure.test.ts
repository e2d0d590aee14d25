import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { providerSetup } from '../providers/play.js';
import { startStrictFake, type StrictFake } from '../../src/testing/fake-model/server.js';
import { World, builtinFlow, ensureBuilt, type Summary } from './helpers/cli.js';

/**
 * A wrong model id, as a newcomer types it: the strict OpenAI stand-in answers 404 model_not_found as
 * the real service does. The failure says the provider's sentence and the command that continues the
 * run; `retry --model` with the right id completes it. The CLI as a subprocess, a real SQLite store.
 */
describe('cli: a failed model call says how to continue', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  let fake: StrictFake;
  beforeEach(async () => {
    w = new World();
    fake = await startStrictFake(
      'openai',
      () => ({ calls: [{ id: 'c1', name: 'builtin_node_finish', args: '{"summary":"done"}' }] }),
      'sk-openai-test',
      { models: ['gpt-4.1'] },
    );
  });
  afterEach(async () => {
    await fake.close();
    await w.dispose();
  });

  it('404 model_not_found: the sentence and `retry RUN_ID --model M`; retry --model completes the run', async () => {
    w.write('flow.yaml', builtinFlow());
    const { env } = providerSetup('openai', fake.url, fake.key, false);
    const failed = await w.cli(['run', 'flow.yaml', '--input', 'x', '--model', 'openai:gpt-41'], { env });
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stderr).toContain(
      'openai:gpt-41: HTTP 404 Not Found: The model `gpt-41` does not exist or you do not have access to it.',
    );
    const runId = /run (run_[A-Za-z0-9]+)/.exec(failed.stderr)?.[1] ?? '';
    expect(runId).not.toBe('');
    // `npx agent-runtime` when the command is not on PATH (as in this test), as every printed follow-up.
    expect(failed.stderr).toMatch(
      new RegExp(
        `continue with: (npx )?agent-runtime retry ${runId} --model M --db ${w.dbUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      ),
    );
    expect(failed.stderr).not.toContain(fake.url);

    const status = await w.cli(['status', runId, '--json']);
    const summary = status.json as Summary & { continueWith?: { command: string; request: string } };
    expect(summary.message).toContain('The model `gpt-41` does not exist');
    expect(summary.continueWith).toEqual({
      command: `agent-runtime retry ${runId} --model M`,
      request: `POST /v1/runs/${runId}/retry {"model": "M"}`,
    });

    const retried = await w.cli(['retry', runId, '--model', 'openai:gpt-4.1', '--json'], { env });
    expect(retried.code, retried.stderr).toBe(0);
    expect((retried.json as Summary).status).toBe('completed');
    expect((retried.json as Summary & { continueWith?: unknown }).continueWith).toBeUndefined();
  }, 120_000);
});
