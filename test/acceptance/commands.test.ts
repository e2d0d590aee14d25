/**
 * Acceptance of the CLI's contract around runs: cancel, responses that do not match
 * what the run waits for (exit 4, nothing changed), unknown run ids and bad flow files (exit 2).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { flowFile, turnsFile, type CliResult, type Sandbox } from './cli.js';
import { SITE_INPUT, expectRun, expectSuspended, useSandbox, SCENARIO_TIMEOUT_MS } from './scenario.js';
import { expectTraceContract, one, ofType } from './trace.js';

const sandbox = useSandbox();

/** What a caller can see of a run: its summary and its whole trace. */
async function snapshot(box: Sandbox, runId: string): Promise<{ status: unknown; trace: unknown }> {
  const status = await box.status(runId);
  const trace = await box.trace(runId);
  expect(trace.code).toBe(0);
  return { status: status.summary, trace: trace.events };
}

/** A refusal: the exit code, nothing on stdout, one clear line on stderr, no stack trace. */
function expectOneLine(result: CliResult, exit: number, contains: string): void {
  expect(result.code, result.stderr).toBe(exit);
  expect(result.stdout).toBe('');
  const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toContain(contains);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

describe.concurrent('acceptance: run commands', { timeout: SCENARIO_TIMEOUT_MS }, () => {
  it('cancel a suspended run exits 0 (cancelled); cancelling again exits 4; a response after it exits 4', async () => {
    const box = sandbox();
    const first = await box.run(flowFile('site'), turnsFile('write-then-approve'), SITE_INPUT);
    const { runId } = expectSuspended(first, 'APPROVAL', { tool: 'web_site_create' });

    const cancelled = await box.cancel(runId);
    expect(cancelled.code).toBe(0);
    expect(cancelled.summary).toMatchObject({ runId, status: 'cancelled', reason: 'CANCELLED' });
    expect(one(cancelled.events)).toMatchObject({ type: 'run.cancelled', reason: 'CANCELLED', runId });
    expectTraceContract(box.allEvents());

    const before = await snapshot(box, runId);
    expectOneLine(await box.cancel(runId), 4, runId);
    expectOneLine(await box.approve(runId), 4, runId);
    expect(await snapshot(box, runId)).toEqual(before);
    const status = await box.status(runId);
    expectRun(status, 1, 'cancelled');
    expect(box.writes()).toEqual([]);
  });

  it('approve, reject or resume on a run waiting for an answer exits 4 and changes nothing; answer on a run waiting for approval too', async () => {
    const box = sandbox();
    const asking = await box.run(flowFile('site'), turnsFile('follow-up-answered'), '在默认空间建一个新站点');
    const { runId } = expectSuspended(asking, 'FOLLOW_UP', { question: '新站点叫什么名字？' });

    const before = await snapshot(box, runId);
    const approved = await box.approve(runId, '好');
    expectOneLine(approved, 4, runId);
    expect(approved.stderr).toContain('nothing changed');
    expect(approved.events).toEqual([]);
    expectOneLine(await box.reject(runId), 4, runId);
    expectOneLine(await box.cli(['resume', runId]), 4, runId);
    expect(await snapshot(box, runId)).toEqual(before);
    expect(before.status).toMatchObject({ status: 'suspended', suspension: { kind: 'FOLLOW_UP' } });

    const gated = await box.run(flowFile('site'), turnsFile('write-then-approve'), SITE_INPUT);
    const other = expectSuspended(gated, 'APPROVAL', { tool: 'web_site_create' }).runId;
    const beforeAnswer = await snapshot(box, other);
    const answered = await box.answer(other, '官网');
    expectOneLine(answered, 4, other);
    expect(answered.events).toEqual([]);
    expect(await snapshot(box, other)).toEqual(beforeAnswer);
    // The first run still takes its answer afterwards.
    expectSuspended(await box.answer(runId, '就叫 官网 吧'), 'APPROVAL', { tool: 'web_site_create' });
  });

  it('an unknown run id exits 2 with one clear line, for every command that takes one', async () => {
    const box = sandbox();
    const runId = 'run_does_not_exist';
    const commands: [string[], { trace?: boolean }][] = [
      [['status', runId], { trace: false }],
      [['trace', runId], { trace: false }],
      [['approve', runId], {}],
      [['reject', runId], {}],
      [['answer', runId, '官网'], {}],
      [['resume', runId], {}],
      [['cancel', runId], {}],
    ];
    for (const [args, options] of commands) {
      const result = await box.cli(args, options);
      expectOneLine(result, 2, runId);
    }
    expect(box.allEvents()).toEqual([]);
  });

  it('a bad flow file exits 2 with file:line:col lines and no stack trace (run and validate)', async () => {
    const box = sandbox();
    const file = flowFile('invalid');
    const run = await box.run(file, turnsFile('query-finish'), SITE_INPUT);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line.startsWith(`${file}:`), line).toBe(true);
    expect(lines[0]).toMatch(/:3:\d+ locale: /);
    expect(lines[1]).toMatch(/:9:\d+ nodes\[0\]\.colour: /);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(box.allEvents()).toEqual([]);

    const validate = await box.cli(['validate', file], { trace: false, json: false, db: false });
    expect(validate.code).toBe(2);
    expect(validate.stderr).toContain(lines[0]);
    expect(validate.stderr).toContain(lines[1]);
    expect(validate.stderr).not.toMatch(/^\s+at /m);

    const broken = join(box.dir, 'broken.flow.yaml');
    writeFileSync(broken, 'id: broken\nnodes: [\n  { id: a\n');
    const yaml = await box.run(broken, turnsFile('query-finish'), SITE_INPUT);
    expect(yaml.code).toBe(2);
    expect(yaml.stderr).toMatch(new RegExp(`^${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+`));
    expect(yaml.stderr).not.toMatch(/^\s+at /m);
    expect(ofType(box.allEvents(), 'run.started')).toEqual([]);
  });
});
