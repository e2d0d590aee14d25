import { writeFileSync } from 'node:fs';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCancelServer, until, type CancelServer } from '../helpers/cancel-server.js';
import { World, ensureBuilt, finish, spawnCli, turnsYaml } from './helpers/cli.js';

/** What a spawned CLI process printed and how it ended. */
function collect(child: ReturnType<typeof spawnCli>) {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

/**
 * A tool call in flight over Streamable HTTP is stopped at the server by `cancel` from another process
 * and by Ctrl-C in the driving one; after Ctrl-C the run is left `running` and `resume` goes on.
 */
describe('cli: stopping an in-flight HTTP tool call', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  let server: CancelServer;
  beforeEach(async () => {
    w = new World();
    server = await startCancelServer(w.dir);
    w.write('flow.yaml', flowYaml());
    w.write('turns.yaml', turnsYaml([{ calls: [{ tool: 'wait', args: { ms: 20_000 } }] }, finish]));
  });
  /** The flow: one node with the server's `wait`, and `extra` lines at the top level. */
  const flowYaml = (...extra: string[]) =>
    [
      'id: slow',
      'locale: en',
      'mcpServers:',
      `  slow: { url: ${JSON.stringify(server.url)} }`,
      ...extra,
      'nodes:',
      '  - id: work',
      '    tools: [wait]',
    ].join('\n');
  afterEach(async () => {
    server.stop();
    await w.dispose();
  });

  const startRun = () =>
    collect(
      spawnCli(
        [
          'run',
          'flow.yaml',
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
        },
      ),
    );
  const started = () => server.entries().some((e) => e.event === 'started');
  const cancelled = () => server.entries().some((e) => e.event === 'cancelled');

  it('`cancel` from a second process stops the call at the server and ends the run cancelled', async () => {
    const run = startRun();
    await until(started, 'the call to reach the server', 20_000);
    await until(() => w.traceEvents().length > 0, 'the first commit');
    const runId = w.traceEvents()[0]?.runId as string;
    const began = Date.now();
    const cancel = await w.cli(['cancel', runId, '--json']);
    expect(cancel.code).toBe(0);
    expect(cancel.json).toMatchObject({ runId, status: 'cancelled' });
    // The driving process noticed through the store and cancelled its call: the server saw it.
    await until(cancelled, 'the server to see the cancellation', 10_000);
    expect(await run.exited).toBe(1);
    expect(Date.now() - began).toBeLessThan(10_000); // not the 20 s the call would have taken
    expect(JSON.parse(run.out())).toMatchObject({ runId, status: 'cancelled' });
    expect(server.entries().map((e) => e.event)).toEqual(['started', 'cancelled']);
    const status = await w.cli(['status', runId, '--json']);
    expect(status.json).toMatchObject({ status: 'cancelled' });
  }, 60_000);

  it('a call that times out and ends the run is cancelled at the server before the CLI exits', async () => {
    // The call times out at 400 ms; the model then finishes, so the run ends and the CLI closes its
    // connections right after the call. (With the SDK in use the cancellation's POST also gets through
    // when close does not wait for it, so this proves the outcome, not the wait on close.)
    w.write('flow.yaml', flowYaml('limits: { toolTimeoutMs: 400 }'));
    const run = startRun();
    expect(await run.exited, run.err()).toBe(0);
    expect(JSON.parse(run.out())).toMatchObject({ status: 'completed' });
    const invoked = w.traceEvents().find((e) => e.type === 'tool.invoked' && e.tool === 'wait');
    expect(invoked).toMatchObject({ outcome: 'FAILED', errorCode: 'TOOL_TIMEOUT' });
    // The server process outlives the CLI: the cancellation reached it (it was not left to run 20 s).
    await until(cancelled, 'the server to see the cancellation', 5_000);
    expect(server.entries().map((e) => e.event)).toEqual(['started', 'cancelled']);
  }, 60_000);

  it('Ctrl-C cancels the call at the server and leaves the run running; resume continues it', async () => {
    const run = startRun();
    await until(started, 'the call to reach the server', 20_000);
    await until(() => w.traceEvents().length > 0, 'the first commit');
    const runId = w.traceEvents()[0]?.runId as string;
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.err()).toContain('interrupted');
    expect(run.err()).toContain(`resume ${runId}`);
    await until(cancelled, 'the server to see the cancellation', 10_000);
    const status = await w.cli(['status', runId, '--json']);
    expect(status.json).toMatchObject({ status: 'running' });

    // The lease was given up: resume takes the run at once, repeats the read (now quick) and finishes.
    writeFileSync(server.release, '');
    const resumed = await w.cli(['resume', runId, '--json', '--trace', w.traceFile]);
    expect(resumed.code).toBe(0);
    expect(resumed.json).toMatchObject({ runId, status: 'completed' });
    const events = w.traceEvents();
    expect(events.find((e) => e.type === 'run.resumed')).toMatchObject({ kind: 'RECOVERY' });
    expect(events.filter((e) => e.type === 'tool.invoked' && e.tool === 'wait').at(-1)).toMatchObject({
      outcome: 'SUCCESS',
    });
    expect(server.entries().map((e) => e.event)).toEqual(['started', 'cancelled', 'started', 'finished']);
  }, 60_000);
});
