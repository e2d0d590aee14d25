import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, loadFlow, scriptedModel, type Runtime } from '../../src/index.js';
import type { ScriptedTurn } from '../../src/model/scripted.js';
import type { StoredEvent } from '../../src/store/store.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
import { sqliteUrl } from '../runtime/helpers.js';

const STRUCTURED_SERVER = join(REPO_ROOT, 'test/fixtures/mcp/structured-server.mjs');
/** The official reference server; its `get-structured-content` declares an outputSchema. */
const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const call = (tool: string, args: Record<string, unknown>) => ({ tool, args });
const finish = call('builtin_node_finish', { summary: 'done' });

async function toolEvents(runtime: Runtime, runId: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of runtime.events(runId)) {
    if (event.type === 'tool.invoked') events.push(event);
    if (event.type === 'run.completed' || event.type === 'run.failed') break;
  }
  return events;
}

describe('structured MCP results (real servers)', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });
  function runtime(): Runtime {
    const rt = createRuntime({ store: sqliteUrl(), logger: false });
    runtimes.push(rt);
    return rt;
  }

  it('server-everything: structuredContent is the evidence payload, and a typed output cites a number from it', async () => {
    const flow = await loadFlow({
      id: 'weather',
      locale: 'en',
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
      nodes: [
        {
          id: 'ask',
          tools: ['get-structured-content'],
          outputs: {
            temperature: {
              required: true,
              sources: ['evidence'],
              from: ['get-structured-content'],
              schema: { type: 'number' },
            },
          },
        },
      ],
    });
    const turns: ScriptedTurn[] = [
      { calls: [call('get-structured-content', { location: 'Chicago' })] },
      {
        calls: [
          call('builtin_output_set', {
            key: 'temperature',
            value: 36,
            sourceType: 'evidence',
            sourceRef: 'ev_1',
          }),
          finish,
        ],
      },
    ];
    const rt = runtime();
    const run = await rt.start(flow, {
      input: { text: 'weather in Chicago' },
      model: scriptedModel({ turns }),
    });
    expect(run.status).toBe('completed');
    expect(run.outputs).toEqual({ ask: { temperature: 36 } });
    const [first] = await toolEvents(rt, run.runId);
    expect(first).toMatchObject({ outcome: 'SUCCESS', errorCode: null, evidenceId: 'ev_1' });
    // The evidence is the structured content itself, not its text block.
    const [evidence] = await rt.evidence(run.runId);
    expect(evidence?.payload).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
  });

  it('a result breaking the declared outputSchema, or lacking structuredContent, is FAILED MCP_OUTPUT_SCHEMA_MISMATCH', async () => {
    const flow = await loadFlow({
      id: 'structured',
      locale: 'en',
      mcpServers: { sensor: { command: process.execPath, args: [STRUCTURED_SERVER] } },
      nodes: [{ id: 'measure', tools: ['measure'] }],
    });
    const turns: ScriptedTurn[] = ['bad', 'none', 'error', 'ok'].map((mode) => ({
      calls: [call('measure', { mode })],
    }));
    turns.push({ calls: [finish] });
    const rt = runtime();
    const run = await rt.start(flow, { input: { text: 'count' }, model: scriptedModel({ turns }) });
    expect(run.status).toBe('completed');
    const events = await toolEvents(rt, run.runId);
    expect(events.map((e) => [e.outcome, e.errorCode])).toEqual([
      ['FAILED', 'MCP_OUTPUT_SCHEMA_MISMATCH'],
      ['FAILED', 'MCP_OUTPUT_SCHEMA_MISMATCH'],
      ['FAILED', 'MCP_TOOL_ERROR'],
      ['SUCCESS', null],
      ['SUCCESS', null],
    ]);
    const next =
      'do not rely on this result and do not repeat a write; use another tool, or call builtin_node_fail with the reason (the tool server is at fault)';
    expect(events[0]?.message).toBe(
      `Tool measure returned a structured result that does not match its declared outputSchema: count: must be of type integer. Next: ${next}.`,
    );
    expect(events[1]?.message).toBe(
      `Tool measure returned a structured result that does not match its declared outputSchema: the result has no structuredContent. Next: ${next}.`,
    );
    // The broken answer is kept for the person reading the trace; a failed call cannot be cited.
    expect(events[0]?.result).toEqual({ count: 'many' });
    expect(events[3]?.result).toEqual({ count: 3 });
  });
});
