import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { World, ensureBuilt, finish, siteFlow, spawnCli, turnsYaml, type Summary } from './helpers/cli.js';

/** Polls `check` until it holds (cross-process: there is nothing to await but the file system). */
async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `resume` after a driver process was killed, and the store location variables. */
describe('cli: resume after a killed driver; store location', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('resume exits 4 while the dead driver lease is live (nothing changes), then continues once it has expired', async () => {
    const flow = w.write('flow.yaml', siteFlow(w.dataDir));
    w.write('turns.yaml', turnsYaml([{ calls: [{ tool: 'slow_query', args: { ms: 1500 } }] }, finish]));
    const child = spawnCli(
      [
        'run',
        flow,
        '--input',
        'x',
        '--model',
        'scripted:turns.yaml',
        '--db',
        w.dbUrl,
        '--trace',
        w.traceFile,
        '--json',
      ],
      {
        cwd: w.dir,
        env: { AGENT_RUNTIME_LEASE_MS: '60000' },
      },
    );
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    await until(() => w.traceEvents().some((e) => e.type === 'model.response'), 'the slow_query wave');
    child.kill('SIGKILL');
    await exited;
    const runId = w.traceEvents()[0]?.runId as string;

    const status = await w.cli(['status', runId, '--json']);
    expect(status.code).toBe(0);
    expect(status.json).toMatchObject({ status: 'running' });
    const row = (await (await w.db()).getRun(runId))!;
    expect(row.leaseExpiresAt).toBeGreaterThan(Date.now() + 30_000); // AGENT_RUNTIME_LEASE_MS applied
    const before = await w.snapshot(runId);
    const refused = await w.cli(['resume', runId, '--json']);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('lease has not expired');
    expect(await w.snapshot(runId)).toEqual(before);

    // Time passes: the dead driver's lease runs out.
    await (
      await w.db()
    ).commit({ runId, expectedVersion: row.version, patch: { leaseExpiresAt: Date.now() - 1 } });
    const resumed = await w.cli(['resume', runId, '--json', '--trace', w.traceFile]);
    expect(resumed.code).toBe(0);
    expect(resumed.json).toMatchObject({ runId, status: 'completed', outputs: { create: {} } });
    const events = w.traceEvents();
    const i = events.findIndex((e) => e.type === 'run.resumed');
    expect(events[i]).toMatchObject({ kind: 'RECOVERY', nodeId: 'create' });
    expect(events[i + 1]).toMatchObject({ type: 'tool.invoked', tool: 'slow_query', outcome: 'SUCCESS' });
    // The resuming process connected to the flow's MCP server again: its revision is traced at its first round.
    const round = events.findIndex((e, k) => k > i && e.type === 'react.round');
    expect(events[round + 1]).toMatchObject({ type: 'mcp.connected', nodeId: 'create' });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, k) => k + 1));
    const again = await w.cli(['resume', runId]);
    expect(again.code).toBe(4);
  });

  it('without --db: AGENT_RUNTIME_DB, else .agent-runtime/runtime.db under the current directory', async () => {
    w.write('flow.yaml', ['id: plain', 'locale: en', 'nodes:', '  - id: a'].join('\n'));
    w.write('turns.yaml', turnsYaml([finish]));
    const args = ['run', 'flow.yaml', '--input', 'x', '--model', 'scripted:turns.yaml', '--json'];
    const viaEnv = await w.cli(args, { db: false, env: { AGENT_RUNTIME_DB: 'sqlite:from-env.db' } });
    expect(viaEnv.code).toBe(0);
    expect(existsSync(join(w.dir, 'from-env.db'))).toBe(true);
    expect(existsSync(join(w.dir, '.agent-runtime'))).toBe(false);
    const byDefault = await w.cli(args, { db: false });
    expect(byDefault.code).toBe(0);
    expect(existsSync(join(w.dir, '.agent-runtime/runtime.db'))).toBe(true);
    const listed = await w.cli(['runs', '--json'], {
      db: false,
      env: { AGENT_RUNTIME_DB: 'sqlite:from-env.db' },
    });
    expect((listed.json as Summary[]).map((s) => s.runId)).toEqual([(viaEnv.json as Summary).runId]);
    const flagWins = await w.cli(
      ['status', (byDefault.json as Summary).runId, '--db', 'sqlite:.agent-runtime/runtime.db'],
      {
        db: false,
        env: { AGENT_RUNTIME_DB: 'sqlite:from-env.db' },
      },
    );
    expect(flagWins.code).toBe(0);
    const badUrl = await w.cli(['runs', '--db', 'mysql://x'], { db: false });
    expect(badUrl.code).toBe(2);
  });
});
