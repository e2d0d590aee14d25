import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, type Sandbox } from '../acceptance/cli.js';
import { SCENARIO_TIMEOUT_MS, useSandbox } from '../acceptance/scenario.js';
import { playTurns, providerSetup, VARIANTS } from './play.js';
import { startStrictFake, type Play, type StrictFake } from '../../src/testing/fake-model/server.js';

/**
 * The demo flow (examples/site-builder) through the three provider paths, streaming and not, against
 * strict fakes, every command a CLI subprocess: it suspends for approval, is approved in a new process
 * and completes, with no refused request. Then `retry` in a new process takes up a run that failed on
 * a provider outage and completes it.
 */

const DEMO = join(REPO_ROOT, 'examples/site-builder');
const INPUT = '在我的空间里创建一个叫 官网 的站点';

const fakes: StrictFake[] = [];
afterAll(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});
const sandbox = useSandbox();

/** The demo flow copied into the sandbox, its MCP server and data folder as absolute paths. */
function demoFlow(box: Sandbox): string {
  const text = readFileSync(join(DEMO, 'flow.yaml'), 'utf8')
    .replace('../demo-cloud/server.js', join(REPO_ROOT, 'examples/demo-cloud/server.js'))
    .replace(
      'env: { DEMO_CLOUD_DATA: ./.data }',
      // A loaded machine may take longer than the default 10 s to start the server.
      `env: { DEMO_CLOUD_DATA: ${JSON.stringify(box.dataDir)} }\n    connectTimeoutMs: 60000`,
    );
  const file = join(box.dir, 'flow.yaml');
  writeFileSync(file, text);
  return file;
}

async function demoBox(
  kind: (typeof VARIANTS)[number],
  play: Play,
): Promise<{ box: Sandbox; fake: StrictFake; model: string }> {
  const fake = await startStrictFake(kind.kind, play);
  fakes.push(fake);
  const box = sandbox();
  const { model, env } = providerSetup(kind.kind, fake.url, fake.key, kind.stream);
  box.env = env;
  return { box, fake, model };
}

describe('the demo flow through real provider paths', () => {
  it.each(VARIANTS)(
    '$name: suspends, is approved in a new process, completes; no refused request',
    async (variant) => {
      const { box, fake, model } = await demoBox(variant, playTurns(join(DEMO, 'turns.yaml')));
      const flow = demoFlow(box);
      const first = await box.cli(['run', flow, '--input', INPUT, '--model', model]);
      expect(first.code, first.stderr).toBe(3);
      expect(first.summary?.suspension).toMatchObject({
        kind: 'APPROVAL',
        pending: { tool: 'web_site_create' },
      });
      const runId = first.summary!.runId;
      const approved = await box.cli(['approve', runId, '--comment', 'ok']);
      expect(approved.code, approved.stderr).toBe(0);
      expect(approved.summary).toMatchObject({
        status: 'completed',
        outputs: { create: { siteId: expect.any(String) } },
      });
      expect(box.writes()).toHaveLength(1);
      expect(fake.refusals().map((r) => r.refused?.message)).toEqual([]);
      expect(fake.requests.every((r) => r.stream === variant.stream)).toBe(true);
    },
    SCENARIO_TIMEOUT_MS,
  );
});

describe('retry in a new process', () => {
  it(
    'takes up a run that failed on a provider outage and completes it; a run that is not failed exits 4',
    async () => {
      const turns = playTurns(join(DEMO, 'turns.yaml'));
      const outage = { on: false };
      const { box, fake, model } = await demoBox(VARIANTS[0]!, (i, body) =>
        outage.on ? { fault: 'server-error' } : turns(i, body),
      );
      const flow = demoFlow(box);
      const first = await box.cli(['run', flow, '--input', INPUT, '--model', model]);
      expect(first.code, first.stderr).toBe(3);
      const runId = first.summary!.runId;

      outage.on = true;
      const failed = await box.cli(['approve', runId]);
      expect(failed.code).toBe(1);
      expect(failed.summary).toMatchObject({ status: 'failed', reason: 'MODEL_FAILED' });
      expect(failed.summary?.message).toMatch(/^anthropic:claude-test: HTTP 529 Overloaded/);

      outage.on = false;
      const retried = await box.cli(['retry', runId]);
      expect(retried.code, retried.stderr).toBe(0);
      expect(retried.summary).toMatchObject({
        status: 'completed',
        outputs: { create: { siteId: expect.any(String) } },
      });
      expect(retried.events[0]).toMatchObject({
        type: 'run.retried',
        reason: 'MODEL_FAILED',
        who: 'acceptance',
      });
      expect(box.writes()).toHaveLength(1);
      expect(fake.refusals()).toEqual([]);

      const again = await box.cli(['retry', runId]);
      expect(again.code).toBe(4);
      expect(again.stdout).toBe('');
      expect(again.stderr.trim().split('\n')).toHaveLength(1);
      expect(again.stderr).toContain('only a failed run can be retried');
    },
    SCENARIO_TIMEOUT_MS,
  );
});
