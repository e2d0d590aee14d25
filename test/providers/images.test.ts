import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import type { AiSdkModelOptions } from '../../src/model/ai-sdk/adapter.js';
import { createProviderRegistry } from '../../src/model/providers.js';
import { createRuntime, type Runtime } from '../../src/runtime/create.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
import { sqliteUrl } from '../runtime/helpers.js';
import { traceOf } from './harness.js';
import { providerSetup } from './play.js';
import {
  startStrictFake,
  type FakeKind,
  type SeenRequest,
  type StrictFake,
} from '../../src/testing/fake-model/server.js';

/**
 * Images of MCP tool results (server-everything's `get-tiny-image`, a real server process) reach a
 * model that takes them as images, through the strict provider fakes, which refuse what the real APIs
 * refuse: Anthropic takes images in a tool result, OpenAI Chat Completions (and compatible servers)
 * take text only in tool messages, so they get the placeholder. No base64 in the trace or the evidence.
 */

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** The start of every PNG, base64. */
const PNG_SIGNATURE = 'iVBORw0KGgo';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

const call = (id: string, name: string, args: unknown) => ({ id, name, args: JSON.stringify(args) });
const STORY = [
  { calls: [call('call_1', 'get-tiny-image', {})] },
  { calls: [call('call_2', 'builtin_node_follow_up', { question: 'Which colour is the logo?' })] },
  { calls: [call('call_3', 'builtin_node_finish', { summary: 'Looked at the image.' })] },
];

async function setup(kind: FakeKind, model: AiSdkModelOptions = {}, store = sqliteUrl()) {
  const fake = await startStrictFake(kind, (i) => STORY[i] ?? { text: 'no more turns' });
  open.push(fake);
  const { model: name, env } = providerSetup(kind, fake.url, fake.key, false);
  const runtime = () => {
    const r = createRuntime({ store, logger: false, providers: createProviderRegistry({ env, model }) });
    open.push(r);
    return r;
  };
  const flow = await loadFlow({
    id: 'images',
    locale: 'en',
    model: name,
    mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
    nodes: [{ id: 'look', instructions: 'Look at the image.', tools: ['get-tiny-image'] }],
  });
  return { fake, runtime, flow };
}

/** The tool result of `call_1` in a request, whatever the wire format (Anthropic block / OpenAI message). */
function imageCallResult(request: SeenRequest): unknown {
  const messages = request.body.messages as { role: string; content: unknown; tool_call_id?: string }[];
  const tool = messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call_1');
  if (tool) return tool.content;
  const blocks = messages.flatMap((m) =>
    Array.isArray(m.content) ? (m.content as Record<string, unknown>[]) : [],
  );
  return blocks.find((b) => b.type === 'tool_result' && b.tool_use_id === 'call_1')?.content;
}

/** The image placeholder the trace recorded for the call (its result's image block). */
async function tracedImage(runtime: Runtime, runId: string) {
  const events = await traceOf(runtime, runId);
  const invoked = events.find((e) => e.type === 'tool.invoked' && e.tool === 'get-tiny-image') as
    { result?: { type: string; sha256?: string; bytes?: number }[] } | undefined;
  expect(JSON.stringify(events)).not.toContain(PNG_SIGNATURE);
  return invoked?.result?.find((b) => b.type === 'image');
}

function noRefusals(fake: StrictFake): void {
  expect(fake.refusals().map((r) => r.refused?.message)).toEqual([]);
}

describe('images of MCP tool results through the providers', () => {
  it('Anthropic gets the PNG as an image of the tool result, after a resume in a new runtime too', async () => {
    const { fake, runtime, flow } = await setup('anthropic');
    const first = runtime();
    const asked = await first.start(flow, { input: { text: 'show me the logo' } });
    expect(asked).toMatchObject({ status: 'suspended', suspension: { kind: 'FOLLOW_UP' } });
    const placeholder = await tracedImage(first, asked.runId);
    expect(placeholder).toMatchObject({
      mimeType: 'image/png',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const [evidence] = await first.evidence(asked.runId);
    expect(JSON.stringify(evidence)).not.toContain(PNG_SIGNATURE);
    expect(JSON.stringify(evidence)).toContain(placeholder?.sha256);

    // The suspended run is answered by another runtime on the same store: the image comes from the store.
    const done = await runtime().answer(asked.runId, 'blue');
    expect(done.status).toBe('completed');
    noRefusals(fake);
    expect(fake.requests).toHaveLength(3);
    for (const request of fake.requests.slice(1)) {
      const content = imageCallResult(request) as Record<string, unknown>[];
      expect(content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('image/png') });
      const image = content.find((b) => b.type === 'image') as { source: { data: string } } | undefined;
      expect(image?.source).toMatchObject({ type: 'base64', media_type: 'image/png' });
      const data = image?.source.data ?? '';
      expect(data.startsWith(PNG_SIGNATURE)).toBe(true);
      const bytes = Buffer.from(data, 'base64');
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(placeholder?.sha256);
      expect(bytes.length).toBe(placeholder?.bytes);
    }
  }, 60_000);

  it.each(['openai', 'qwen'] as const)(
    '%s (Chat Completions: text-only tool messages) gets the placeholder, never the base64',
    async (kind) => {
      const { fake, runtime, flow } = await setup(kind);
      const r = runtime();
      const asked = await r.start(flow, { input: { text: 'show me the logo' } });
      expect(asked.status).toBe('suspended');
      noRefusals(fake);
      const placeholder = await tracedImage(r, asked.runId);
      const content = imageCallResult(fake.requests[1]!);
      expect(typeof content).toBe('string');
      expect(content).toContain('image/png');
      expect(content).toContain(placeholder?.sha256);
      expect(fake.requests[1]!.text).not.toContain(PNG_SIGNATURE);
    },
    60_000,
  );

  it('toolResultImages: false keeps Anthropic to the placeholder (a model that does not read images)', async () => {
    const { fake, runtime, flow } = await setup('anthropic', { toolResultImages: false });
    const asked = await runtime().start(flow, { input: { text: 'show me the logo' } });
    expect(asked.status).toBe('suspended');
    noRefusals(fake);
    expect(fake.requests[1]!.text).not.toContain(PNG_SIGNATURE);
    expect(JSON.stringify(imageCallResult(fake.requests[1]!))).toContain('image/png');
  }, 60_000);
});
