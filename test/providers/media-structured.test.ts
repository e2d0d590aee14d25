import { createHash } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { createProviderRegistry } from '../../src/model/providers.js';
import { createRuntime } from '../../src/runtime/create.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
import { sqliteUrl } from '../runtime/helpers.js';
import { traceOf } from './harness.js';
import { providerSetup } from './play.js';
import { startStrictFake, type SeenRequest } from '../../src/testing/fake-model/server.js';

/**
 * The reference filesystem server's `read_media_file` repeats its image block in `structuredContent`.
 * The image still reaches a model that reads images (the strict Anthropic stand-in) as an image part,
 * and the result, the trace and the evidence keep it by size and digest only, never as base64 text.
 */

const FS_SERVER = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const PNG_BASE64 = PNG.toString('base64');
const PNG_SHA256 = createHash('sha256').update(PNG).digest('hex');

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

const call = (id: string, name: string, args: unknown) => ({ id, name, args: JSON.stringify(args) });

/** The `tool_result` block answering `call_1` in an Anthropic request. */
function toolResult(request: SeenRequest): Record<string, unknown>[] {
  const messages = request.body.messages as { content: unknown }[];
  const blocks = messages.flatMap((m) =>
    Array.isArray(m.content) ? (m.content as Record<string, unknown>[]) : [],
  );
  const found = blocks.find((b) => b.type === 'tool_result' && b.tool_use_id === 'call_1');
  return (found?.content ?? []) as Record<string, unknown>[];
}

/**
 * Runs a one-node flow on the real filesystem server whose model (a strict Anthropic stand-in) reads
 * `name`, holding `bytes`, with read_media_file and then finishes.
 */
async function readMedia(name: string, bytes: Buffer) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'media-')));
  open.push({ close: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })) });
  const file = join(dir, name);
  writeFileSync(file, bytes);
  const story = [
    { calls: [call('call_1', 'read_media_file', { path: file })] },
    { calls: [call('call_2', 'builtin_node_finish', { summary: `Read ${name}.` })] },
  ];
  const fake = await startStrictFake('anthropic', (i) => story[i] ?? { text: 'no more turns' });
  open.push(fake);
  const { model, env } = providerSetup('anthropic', fake.url, fake.key, false);
  const runtime = createRuntime({
    store: sqliteUrl(),
    logger: false,
    providers: createProviderRegistry({ env }),
  });
  open.push(runtime);
  const flow = await loadFlow({
    id: 'media',
    locale: 'en',
    model,
    mcpServers: { fs: { command: process.execPath, args: [FS_SERVER, dir] } },
    nodes: [{ id: 'read', instructions: `Read ${name}.`, tools: ['read_media_file'] }],
  });
  const done = await runtime.start(flow, { input: { text: `show me ${name}` } });
  return { fake, runtime, done };
}

describe('media in structuredContent (server-filesystem read_media_file)', () => {
  it('the image reaches Anthropic as an image part; result, trace and evidence hold its digest, not base64', async () => {
    const { fake, runtime, done } = await readMedia('logo.png', PNG);
    expect(done.status).toBe('completed');
    expect(fake.refusals().map((r) => r.refused?.message)).toEqual([]);
    expect(fake.requests).toHaveLength(2);

    const content = toolResult(fake.requests[1]!);
    const image = content.find((b) => b.type === 'image') as
      { source: { type: string; media_type: string; data: string } } | undefined;
    expect(image?.source).toMatchObject({ type: 'base64', media_type: 'image/png' });
    expect(image?.source.data).toBe(PNG_BASE64);
    // The text part (the result as the model reads it) names the image by digest, without its data.
    const text = content
      .filter((b) => b.type === 'text')
      .map((b) => String(b.text))
      .join('\n');
    expect(text).toContain(PNG_SHA256);
    expect(text).not.toContain(PNG_BASE64);

    const events = await traceOf(runtime, done.runId);
    expect(JSON.stringify(events)).not.toContain(PNG_BASE64);
    const invoked = events.find((e) => e.type === 'tool.invoked' && e.tool === 'read_media_file') as
      { result?: { content?: unknown[] } } | undefined;
    expect(invoked?.result?.content).toEqual([
      { type: 'image', mimeType: 'image/png', bytes: PNG.length, sha256: PNG_SHA256 },
    ]);
    const evidence = await runtime.evidence(done.runId);
    expect(JSON.stringify(evidence)).not.toContain(PNG_BASE64);
    expect(JSON.stringify(evidence)).toContain(PNG_SHA256);
  }, 60_000);
});

describe('audio in structuredContent (server-filesystem read_media_file)', () => {
  it('reaches the trace, the evidence and the model as type, size and digest only (Anthropic reads no audio)', async () => {
    // A short WAV: a RIFF header and 600 bytes of samples (distinctive base64 in any text it reaches).
    const wav = Buffer.concat([Buffer.from('RIFF....WAVEfmt ', 'latin1'), Buffer.alloc(600, 0x5a)]);
    const wavBase64 = wav.toString('base64');
    const wavSha256 = createHash('sha256').update(wav).digest('hex');
    const { fake, runtime, done } = await readMedia('chime.wav', wav);
    expect(done.status).toBe('completed');
    expect(fake.refusals().map((r) => r.refused?.message)).toEqual([]);
    const sent = JSON.stringify(toolResult(fake.requests[1]!));
    expect(sent).toContain(wavSha256);
    expect(sent).not.toContain(wavBase64.slice(0, 200));

    const placeholder = { type: 'audio', mimeType: 'audio/wav', bytes: wav.length, sha256: wavSha256 };
    const events = await traceOf(runtime, done.runId);
    expect(JSON.stringify(events)).not.toContain(wavBase64.slice(0, 200));
    const invoked = events.find((e) => e.type === 'tool.invoked' && e.tool === 'read_media_file') as
      { result?: { content?: unknown[] } } | undefined;
    expect(invoked?.result?.content).toEqual([placeholder]);
    const evidence = await runtime.evidence(done.runId);
    expect(JSON.stringify(evidence)).not.toContain(wavBase64.slice(0, 200));
    expect(evidence[0]?.payload).toEqual({ content: [placeholder] });
  }, 60_000);
});
