import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useSandbox } from '../acceptance/scenario.js';
import type { Sandbox } from '../acceptance/cli.js';
import { spawnCli } from '../cli/helpers/cli.js';
import { startTaskServer, type TaskServer } from '../helpers/task-server.js';

/**
 * Tools that run as tasks are durable waits (docs/mcp.md, "Tools that run as tasks"): against a real
 * HTTP server whose tasks outlive its clients and the CLI as subprocesses, a task that outlasts the
 * call's short wait suspends the run (kind TASK) with the task recorded; the process is killed; another
 * process polls the same task — the call is never sent again — and finishes the run with its result.
 */

const sandbox = useSandbox();
let server: TaskServer;
const children: ChildProcess[] = [];

beforeEach(async () => {
  server = await startTaskServer();
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await server.close();
});

function setUp(dir: string, url: string, write: boolean): { flow: string; turns: string } {
  const flow = join(dir, 'report.flow.json');
  const turns = join(dir, 'report.turns.json');
  writeFileSync(
    flow,
    JSON.stringify({
      id: 'report',
      version: 1,
      locale: 'en',
      mcpServers: { reports: { url } },
      tools: { build_report: write ? { write: true, approval: { auto: 'true' } } : { write: false } },
      nodes: [{ id: 'main', instructions: 'Report.', tools: ['build_report'] }],
    }),
  );
  const report = { node: 'main', calls: [{ tool: 'build_report', args: { topic: 'tides' } }] };
  // A write is gated first: the model asks for approval, which the flow's rule grants at once.
  const approval = {
    node: 'main',
    calls: [{ tool: 'builtin_node_approval', args: { tool: 'build_report', summary: 'report on tides' } }],
  };
  const finish = { node: 'main', calls: [{ tool: 'builtin_node_finish', args: { summary: 'reported' } }] };
  writeFileSync(
    turns,
    JSON.stringify({ turns: write ? [report, approval, report, finish] : [report, finish] }),
  );
  return { flow, turns };
}

/**
 * Starts `run` in a process of its own and kills it once its run waits for the task (or, with `at:
 * 'started'`, as soon as the task was created, before the run suspends); returns the run id.
 */
async function suspendedInAnotherProcess(
  box: Sandbox,
  flow: string,
  turns: string,
  at: 'suspended' | 'started' = 'suspended',
): Promise<string> {
  const db = `sqlite:${box.db}`;
  const args = ['run', flow, '--input', 'a report', '--model', `scripted:${turns}`, '--db', db];
  const child = spawnCli([...args, '--trace', box.traceFile, '--json'], { cwd: box.dir, env: box.env });
  children.push(child);
  for (;;) {
    const suspended = box
      .allEvents()
      .find((e) =>
        at === 'started' ? e.type === 'tool.task' : e.type === 'run.suspended' && e.kind === 'TASK',
      );
    if (suspended) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('close', resolve));
      return suspended.runId;
    }
    if (child.exitCode !== null)
      throw new Error(`run ended before it waited for the task (${child.exitCode})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('MCP tasks as durable waits', { timeout: 120_000 }, () => {
  it('a run waits for its task, is killed, and finishes in another process without sending the call again', async () => {
    const box = sandbox();
    const { flow, turns } = setUp(box.dir, server.url, false);
    const runId = await suspendedInAnotherProcess(box, flow, turns);

    const status = await box.status(runId);
    expect(status.summary?.status).toBe('suspended');
    expect(status.summary?.suspension).toMatchObject({
      kind: 'TASK',
      pending: { task: { server: 'reports', tool: 'build_report', taskId: 'task-1', status: 'working' } },
    });
    const started = box.allEvents().find((e) => e.type === 'tool.task');
    // The fields docs/trace.md documents for tool.task.
    expect(Object.keys(started ?? {}).sort()).toEqual([
      'callId',
      'nodeId',
      'phase',
      'round',
      'runId',
      'seq',
      'server',
      'status',
      'statusMessage',
      'taskId',
      'tool',
      'ts',
      'type',
    ]);
    expect(started).toMatchObject({
      tool: 'build_report',
      server: 'reports',
      taskId: 'task-1',
      phase: 'started',
    });

    server.complete();
    const done = await box.cli(['resume', runId]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.summary?.status).toBe('completed');
    expect(done.events.find((e) => e.type === 'run.resumed')).toMatchObject({ kind: 'TASK' });
    const invoked = done.events.find((e) => e.type === 'tool.invoked' && e.tool === 'build_report');
    expect(invoked).toMatchObject({ outcome: 'SUCCESS', executed: true });
    expect(JSON.stringify(invoked?.result)).toContain('Report on tides: done.');
    // One tools/call in two processes: the second polled the task and fetched its result.
    expect(server.calls('tools/call')).toHaveLength(1);
    expect(server.calls('tasks/result')).toEqual([{ taskId: 'task-1' }]);
  });

  it('a write sent as a task is sent once; its result settles it in another process', async () => {
    const box = sandbox();
    const { flow, turns } = setUp(box.dir, server.url, true);
    const runId = await suspendedInAnotherProcess(box, flow, turns);
    server.complete();
    const done = await box.cli(['resume', runId]);
    expect(done.code, done.stderr).toBe(0);
    expect(server.calls('tools/call')).toHaveLength(1);
    const invoked = done.events.find((e) => e.type === 'tool.invoked' && e.tool === 'build_report');
    expect(invoked).toMatchObject({ outcome: 'SUCCESS', executed: true });
  });

  it('a write whose process was killed while its task worked polls the task, never sending it again', async () => {
    const box = sandbox();
    box.env = { AGENT_RUNTIME_LEASE_MS: '300' };
    const { flow, turns } = setUp(box.dir, server.url, true);
    const runId = await suspendedInAnotherProcess(box, flow, turns, 'started');
    const stored = await box.status(runId);
    expect(stored.summary?.status).toBe('running'); // killed during the call's short wait
    server.complete();
    const done = await box.cli(['resume', runId]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.summary?.status).toBe('completed');
    expect(server.calls('tools/call')).toHaveLength(1);
    expect(server.calls('tasks/result')).toEqual([{ taskId: 'task-1' }]);
    const invoked = done.events.find((e) => e.type === 'tool.invoked' && e.tool === 'build_report');
    expect(invoked).toMatchObject({ outcome: 'SUCCESS', executed: true, lookBack: false });
  });

  it('cancelling the run cancels its task', async () => {
    const box = sandbox();
    const { flow, turns } = setUp(box.dir, server.url, false);
    const runId = await suspendedInAnotherProcess(box, flow, turns);
    const cancelled = await box.cancel(runId);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.summary?.status).toBe('cancelled');
    expect(server.calls('tasks/cancel')).toEqual([{ taskId: 'task-1' }]);
  });

  it('a task the server failed, or forgot, fails the call with a next step', async () => {
    const box = sandbox();
    const { flow, turns } = setUp(box.dir, server.url, false);
    const runId = await suspendedInAnotherProcess(box, flow, turns);
    server.fail();
    const failed = await box.cli(['resume', runId]);
    const invoked = failed.events.find((e) => e.type === 'tool.invoked' && e.tool === 'build_report');
    expect(invoked).toMatchObject({ outcome: 'FAILED', errorCode: 'MCP_TOOL_ERROR' });
    expect(String(invoked?.message)).toContain('no sources on tides');

    const other = sandbox();
    const again = setUp(other.dir, server.url, false);
    const forgotten = await suspendedInAnotherProcess(other, again.flow, again.turns);
    server.forget();
    const expired = await other.cli(['resume', forgotten]);
    const call = expired.events.find((e) => e.type === 'tool.invoked' && e.tool === 'build_report');
    expect(call).toMatchObject({ outcome: 'FAILED', errorCode: 'MCP_INVALID_PARAMS' });
    expect(String(call?.message)).toMatch(/task-2 not found/);
  });
});
