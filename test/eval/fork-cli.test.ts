import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { World, ensureBuilt, REPO_ROOT, type Summary } from '../cli/helpers/cli.js';
import { readWriteLog } from '../helpers/demo-server.js';

const DEMO = join(REPO_ROOT, 'examples/site-builder');

/** The demo flow (examples/site-builder) with absolute paths and the world's data folder. */
function demoFlow(w: World): string {
  const text = readFileSync(join(DEMO, 'flow.yaml'), 'utf8')
    .replace('../demo-cloud/server.js', join(REPO_ROOT, 'examples/demo-cloud/server.js'))
    .replace('env: { DEMO_CLOUD_DATA: ./.data }', `env: { DEMO_CLOUD_DATA: ${JSON.stringify(w.dataDir)} }`)
    .replace('model: scripted:./turns.yaml', `model: scripted:${join(DEMO, 'turns.yaml')}`);
  return w.write('flow.yaml', text);
}

const AFTER = {
  turns: [
    { node: 'create', calls: [{ tool: 'web_site_get', args: { siteId: 'site_1' } }] },
    {
      node: 'create',
      calls: [
        {
          tool: 'builtin_output_set',
          args: { key: 'siteId', value: 'site_1', sourceType: 'evidence', sourceRef: 'ev_3' },
        },
      ],
    },
    {
      node: 'create',
      calls: [{ tool: 'builtin_node_finish', args: { summary: 'the other model: site ready' } }],
    },
  ],
};

/** `agent-runtime fork` and `eval --from-run` on the demo run, as subprocesses on one SQLite store. */
describe('cli: fork and eval --from-run', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it("the demo run, forked at its write's SUCCESS with another model, completes with that model's reply; one write in all", async () => {
    const flow = demoFlow(w);
    const run = await w.cli(['run', flow, '--input', '在默认空间创建一个名为 官网 的站点', '--json']);
    expect(run.code, run.stderr).toBe(3);
    const runId = (run.json as Summary).runId;
    const approved = await w.cli(['approve', runId, '--json']);
    expect(approved.code, approved.stderr).toBe(0);
    const trace = await w.cli(['trace', runId, '--json']);
    const events = trace.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const write = events.find((e) => e.tool === 'web_site_create' && e.outcome === 'SUCCESS')!;
    w.write('after.yaml', stringify(AFTER));
    const forked = await w.cli([
      'fork',
      runId,
      '--at',
      String(write.seq),
      '--model',
      'scripted:after.yaml',
      '--json',
    ]);
    expect(forked.code, forked.stderr).toBe(0);
    const summary = forked.json as Summary & { forkedFrom?: unknown; reply?: unknown };
    expect(summary).toMatchObject({ status: 'completed', forkedFrom: { runId, seq: write.seq } });
    if (summary.reply !== undefined) expect(summary.reply).toBe('the other model: site ready');
    const forkTrace = await w.cli(['trace', summary.runId, '--json']);
    const finish = forkTrace.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((e) => e.tool === 'builtin_node_finish' && e.outcome === 'SUCCESS')
      .at(-1);
    expect((finish?.args as { summary: string }).summary).toBe('the other model: site ready');
    expect(readWriteLog(w.dataDir)).toHaveLength(1);

    const bad = await w.cli(['fork', runId, '--at', '2']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/cannot be forked at event 2: .*nearest: \d+/);
    const missing = await w.cli(['fork', runId]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--at SEQ is required');

    const made = await w.cli(['eval', '--from-run', runId]);
    expect(made.code, made.stderr).toBe(0);
    const { cases } = parse(made.stdout) as { cases: Record<string, unknown>[] };
    expect(cases[0]).toMatchObject({
      input: { text: '在默认空间创建一个名为 官网 的站点' },
      approvals: ['approve'],
      expect: { status: 'completed', outputs: { equals: { create: { siteId: 'site_1' } } } },
    });
  }, 180_000);
});
