import { afterAll, beforeAll, expect } from 'vitest';
import { code, type RuntimeErrorCodeName } from '../../src/domain/error-codes.js';
import { hint, type HintKey } from '../../src/domain/hints.js';
import { joinReasonAndNext } from '../../src/domain/observation.js';
import { ensureBuilt, Sandbox, type CliResult, type Summary } from './cli.js';
import { one, ofType } from './trace.js';

/**
 * Time limit of one scenario. On an idle machine each takes a few seconds; the margin is for a loaded
 * machine, where every CLI process (and the MCP server it starts) is slower.
 */
export const SCENARIO_TIMEOUT_MS = 120_000;

/** The site request every site-flow scenario starts from. */
export const SITE_INPUT = '在默认空间创建一个名为 官网 的站点';

/** A zh-CN reason of a code, as the runtime fills it. */
export const reason = (name: RuntimeErrorCodeName, params: Record<string, string | number> = {}): string =>
  code(name).reason('zh-CN', params);

/** A zh-CN hint text (NEXT_* and facts). */
export const zh = (key: HintKey, params: Record<string, string | number> = {}): string =>
  hint('zh-CN', key, params);

/** A zh-CN observation message: `<reason>。下一步：<next>。` */
export const message = (reasonText: string, next: string): string =>
  joinReasonAndNext('zh-CN', reasonText, next);

/**
 * Registers the build every acceptance file needs (one shared build of the CLI before the file) and
 * returns the sandbox factory: each call gives a fresh sandbox, removed after the file's tests (not
 * per test, so that the tests of a file may run concurrently).
 */
export function useSandbox(): () => Sandbox {
  const boxes: Sandbox[] = [];
  beforeAll(() => ensureBuilt(), 180_000);
  afterAll(() => {
    for (const box of boxes.splice(0)) box.dispose();
  });
  return () => {
    const box = new Sandbox();
    boxes.push(box);
    return box;
  };
}

/** Asserts the exit code and the JSON summary's status, and returns the summary. */
export function expectRun(result: CliResult, exit: number, status: Summary['status']): Summary {
  expect(result.code, `exit code; stderr:\n${result.stderr}`).toBe(exit);
  expect(result.summary, `a JSON summary on stdout; got:\n${result.stdout}`).not.toBeNull();
  const summary = result.summary as Summary;
  expect(summary.status).toBe(status);
  expect(summary.runId).toMatch(/^run_/);
  expect(summary.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  expect(result.stderr).not.toMatch(/^\s+at /m);
  return summary;
}

/**
 * Asserts a suspension (exit 3): the summary's kind and pending item, the trace ending with
 * node.suspended then run.suspended carrying the same pending item, and stderr naming the run id.
 */
export function expectSuspended(
  result: CliResult,
  kind: 'APPROVAL' | 'FOLLOW_UP',
  pending: Record<string, unknown>,
): Summary {
  const summary = expectRun(result, 3, 'suspended');
  expect(summary.suspension?.kind).toBe(kind);
  expect(summary.suspension?.pending).toMatchObject(pending);
  const [nodeSuspended, runSuspended] = result.events.slice(-2);
  expect(nodeSuspended).toMatchObject({ type: 'node.suspended', kind, pending });
  expect(runSuspended).toMatchObject({ type: 'run.suspended', kind, pending });
  expect(ofType(result.events, 'run.suspended')).toHaveLength(1);
  // Exit 3 prints the run id and what it waits for.
  const waitsFor = summary.suspension?.pending ?? {};
  expect(result.stderr).toContain(summary.runId);
  expect(result.stderr).toContain(String(kind === 'APPROVAL' ? waitsFor.tool : waitsFor.question));
  expect(result.stderr).toContain(
    kind === 'APPROVAL' ? `approve ${summary.runId}` : `answer ${summary.runId}`,
  );
  return summary;
}

/** Asserts that a continuing process starts with run.resumed of this kind, then the suspending call's tool.invoked. */
export function expectResumed(result: CliResult, fields: Record<string, unknown>, tool: string): void {
  const [resumed, resolved] = result.events;
  expect(resumed).toMatchObject({ type: 'run.resumed', ...fields });
  expect(resolved).toMatchObject({ type: 'tool.invoked', tool });
  expect(one(ofType(result.events, 'run.resumed'))).toBe(resumed);
}
