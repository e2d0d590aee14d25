import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, FlowError, loadFlow, type Runtime } from '../../src/index.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
import { recordingModel, sqliteUrl } from '../runtime/helpers.js';

/** The official reference server: `args-prompt` asks for the weather in `city` (and `state`). */
const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
/** Its prompt `stamp` answers a different text each time it is asked (its pid and a count). */
const STAMP_SERVER = join(REPO_ROOT, 'test/fixtures/mcp/log-server.mjs');

const runtimes: Runtime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

function runtime(store = sqliteUrl()): Runtime {
  const r = createRuntime({ store, logger: false });
  runtimes.push(r);
  return r;
}

describe("a node's prompt (prompts/get, server-everything)", () => {
  it('follows the instructions in the system prompt, its arguments rendered from the input', async () => {
    const flow = await loadFlow({
      id: 'weather',
      locale: 'en',
      mcpServers: { everything },
      nodes: [
        {
          id: 'ask',
          instructions: 'Answer the question below.',
          prompt: {
            server: 'everything',
            name: 'args-prompt',
            args: { city: '{{input.text}}', state: 'CA' },
          },
        },
      ],
    });
    const model = recordingModel({ calls: [{ tool: 'builtin_node_finish', args: { summary: 'sunny' } }] });
    const summary = await runtime().start(flow, { input: { text: 'Fresno' }, model });
    expect(summary.status).toBe('completed');
    const system = model.requests[0]?.system ?? '';
    expect(system).toContain("Answer the question below.\n\nWhat's weather in Fresno, CA?");
  }, 30_000);

  it('is asked once per node run: a node run resumed in another runtime reads the same text', async () => {
    const store = sqliteUrl();
    const flow = await loadFlow({
      id: 'stamped',
      locale: 'en',
      mcpServers: { stamp: { command: process.execPath, args: [STAMP_SERVER] } },
      nodes: [{ id: 'ask', prompt: { server: 'stamp', name: 'stamp' } }],
    });
    const first = recordingModel({
      calls: [{ tool: 'builtin_node_follow_up', args: { question: 'Which stamp?' } }],
    });
    const suspended = await runtime(store).start(flow, { input: { text: 'go' }, model: first });
    expect(suspended.status).toBe('suspended');
    const stamp = /Stamp \d+-1\./.exec(first.requests[0]?.system ?? '')?.[0];
    expect(stamp).toBeDefined();

    // Another runtime: another pool, so another server process that would answer another text.
    // The scripted model answers by round: round 2 is the one after the answer.
    const finish = { calls: [{ tool: 'builtin_node_finish', args: { summary: 'ok' } }] };
    const second = recordingModel(finish, finish);
    const done = await runtime(store).answer(suspended.runId, 'the red one', { model: second });
    expect(done.status).toBe('completed');
    expect(second.requests[0]?.system).toContain(stamp);
  }, 30_000);

  it('a prompt the server does not have fails the node as TOOLS_UNAVAILABLE, naming prompt and server', async () => {
    const flow = await loadFlow({
      id: 'weather',
      locale: 'en',
      mcpServers: { everything },
      nodes: [{ id: 'ask', prompt: { server: 'everything', name: 'no-such-prompt' } }],
    });
    const model = recordingModel();
    const summary = await runtime().start(flow, { input: { text: 'x' }, model });
    expect(summary.status).toBe('failed');
    expect(summary.reason).toBe('TOOLS_UNAVAILABLE');
    expect(summary.message).toMatch(/^prompt no-such-prompt of MCP server everything: .*no-such-prompt/);
    expect(model.requests).toHaveLength(0);
  }, 30_000);

  it('validation refuses a prompt of an undeclared server, and one in a code node', async () => {
    const error = (await loadFlow({
      id: 'weather',
      locale: 'en',
      mcpServers: { everything },
      nodes: [
        { id: 'ask', prompt: { server: 'everythin', name: 'args-prompt' } },
        { id: 'sum', prompt: { server: 'everything', name: 'args-prompt' }, run: () => ({}) },
      ],
    }).then(
      () => undefined,
      (e: unknown) => e,
    )) as FlowError;
    expect(error).toBeInstanceOf(FlowError);
    expect(error.message).toContain(
      'nodes[0].prompt.server: "everythin" is not an MCP server of this flow (did you mean "everything"?)',
    );
    expect(error.message).toContain('nodes[1].prompt: a code or map node has no model to read a prompt');
  });
});
