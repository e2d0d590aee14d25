import { describe, expect, it } from 'vitest';
import { describeSummary } from '../../src/cli/render.js';
import { summarize } from '../../src/records/summary.js';

const USAGE = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

function run(patch: Partial<Parameters<typeof summarize>[0]>) {
  return summarize({
    runId: 'run_1',
    status: 'failed',
    suspension: null,
    reason: null,
    failedNode: null,
    message: null,
    usage: USAGE,
    outputs: {},
    flowId: 'wiki',
    parentRunId: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    reply: null,
    threadId: null,
    ...patch,
  });
}

/** The closing lines of a command: what they say about how to continue. */
describe('describeSummary', () => {
  it('a MODEL_FAILED top-level run: the retry command with --model M, and continueWith in the summary', () => {
    const summary = run({
      reason: 'MODEL_FAILED',
      message: 'openai:gpt-41: HTTP 404 Not Found: no such model',
    });
    expect(summary.continueWith?.command).toBe('agent-runtime retry run_1 --model M');
    const text = describeSummary(summary, ' --db sqlite:x.db', 'npx agent-runtime');
    expect(text).toContain('reason: MODEL_FAILED openai:gpt-41: HTTP 404 Not Found: no such model');
    expect(text).toContain('continue with: npx agent-runtime retry run_1 --model M --db sqlite:x.db');
  });

  it('no retry line for a child run or another reason', () => {
    expect(run({ reason: 'MODEL_FAILED', parentRunId: 'run_0' }).continueWith).toBeUndefined();
    const other = run({ reason: 'EDGE_ERROR', message: 'x' });
    expect(other.continueWith).toBeUndefined();
    expect(describeSummary(other)).not.toContain('retry');
  });

  it('a login the runtime names with FLOW names the file the command was given', () => {
    const summary = run({
      reason: 'TOOLS_UNAUTHORIZED',
      message:
        'MCP server wiki needs a new authorization for tool search: run `agent-runtime mcp login FLOW wiki`',
    });
    expect(describeSummary(summary, '', 'agent-runtime', 'flows/my wiki.yaml')).toContain(
      "mcp login 'flows/my wiki.yaml' wiki",
    );
    expect(describeSummary(summary)).toContain('mcp login FLOW wiki');
  });

  it('an authorization wait names the flow file when known, else FLOW.yaml and the flow id', () => {
    const summary = run({
      status: 'suspended',
      suspension: {
        kind: 'FOLLOW_UP',
        pending: { question: 'authorize wiki', authorization: { server: 'wiki' } },
      } as never,
    });
    expect(describeSummary(summary, '', 'agent-runtime', 'wiki.yaml')).toContain(
      "authorize with: agent-runtime mcp login wiki.yaml wiki [--tenant T]   (T: the run's tenant;",
    );
    expect(describeSummary(summary)).toContain(
      'mcp login FLOW.yaml wiki [--tenant T]   (FLOW.yaml: the file of flow wiki;',
    );
  });
});
