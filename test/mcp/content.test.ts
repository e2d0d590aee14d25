import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, loadFlow, type Runtime } from '../../src/index.js';
import { contentBlocks, contentImages } from '../../src/mcp/content.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
import { recordingModel, sqliteUrl } from '../runtime/helpers.js';

/** The official reference server: images, embedded resources and resource links in tool results. */
const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const runtimes: Runtime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

const finish = { tool: 'builtin_node_finish', args: { summary: 'done' } };

/** Runs one node calling `tool` on server-everything; returns the evidence payload and what the model read. */
async function callEverything(tool: string, args: Record<string, unknown>) {
  const runtime = createRuntime({ store: sqliteUrl(), logger: false });
  runtimes.push(runtime);
  const flow = await loadFlow({
    id: 'content',
    locale: 'en',
    mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
    nodes: [{ id: 'look', tools: [tool] }],
  });
  const model = recordingModel({ calls: [{ tool, args }] }, { calls: [finish] });
  const summary = await runtime.start(flow, { input: { text: 'go' }, model });
  expect(summary.status).toBe('completed');
  const [record] = await runtime.evidence(summary.runId);
  const toolMessages = model.requests[1]?.messages.filter((m) => m.role === 'tool') ?? [];
  // The text every model reads; the images (for models that read them) travel beside it.
  const seen = JSON.stringify(toolMessages.map((m) => ({ ...m, images: undefined })));
  const images = toolMessages.flatMap((m) => m.images ?? []);
  return { payload: record?.payload, seen, images };
}

describe('content blocks as content (server-everything)', () => {
  it('an image reaches the evidence and a text-only model as its type, size and digest, never as base64 text', async () => {
    const { payload, seen, images } = await callEverything('get-tiny-image', {});
    expect(payload).toEqual([
      { type: 'text', text: "Here's the image you requested:" },
      {
        type: 'image',
        mimeType: 'image/png',
        bytes: expect.any(Number) as number,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/) as string,
      },
      { type: 'text', text: 'The image above is the MCP logo.' },
    ]);
    const image = (payload as { bytes?: number }[])[1];
    expect(image?.bytes).toBeGreaterThan(1000);
    expect(seen).toContain('image/png');
    expect(seen).not.toContain('iVBORw0KGgo'); // the PNG's base64 signature
    expect(seen.length).toBeLessThan(1500);
    // The conversation keeps the image itself beside the text, for a model that reads images.
    expect(images).toEqual([
      {
        mimeType: 'image/png',
        data: expect.stringMatching(/^iVBORw0KGgo/) as string,
        bytes: image?.bytes,
        sha256: (image as { sha256?: string }).sha256,
      },
    ]);
  }, 30_000);

  it('an embedded text resource is kept whole (citable); a binary one becomes its size', async () => {
    const text = await callEverything('get-resource-reference', { resourceType: 'Text', resourceId: 1 });
    const block = (text.payload as { type: string; resource?: Record<string, unknown> }[])[1];
    expect(block).toMatchObject({
      type: 'resource',
      resource: { uri: expect.stringContaining('1') as string },
    });
    expect(typeof block?.resource?.text).toBe('string');
    const blob = await callEverything('get-resource-reference', { resourceType: 'Blob', resourceId: 2 });
    const binary = (blob.payload as { resource?: Record<string, unknown> }[])[1]?.resource;
    expect(binary?.blob).toBeUndefined();
    expect(binary?.bytes).toBeGreaterThan(0);
  }, 30_000);
});

describe('contentBlocks', () => {
  it('drops binary fields of any block and keeps text and links as they are', () => {
    const link = { type: 'resource_link', uri: 'demo://a', name: 'A' };
    expect(
      contentBlocks([
        { type: 'text', text: 'hi' },
        link,
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'video', data: 'AAAAAAAA' },
      ]),
    ).toEqual([
      { type: 'text', text: 'hi' },
      link,
      {
        type: 'audio',
        mimeType: 'audio/wav',
        bytes: 3,
        sha256: createHash('sha256')
          .update(Buffer.from([0, 0, 0]))
          .digest('hex'),
      },
      { type: 'video', bytes: 6 },
    ]);
  });
});

describe('contentImages', () => {
  it('keeps image blocks with base64 data for the model, with size and digest, within the limits', () => {
    const png = Buffer.from('\x89PNG fake bytes').toString('base64');
    const images = contentImages([
      { type: 'text', text: 'hi' },
      { type: 'image', mimeType: 'image/png', data: png },
      { type: 'image', mimeType: 'text/plain', data: png },
      { type: 'image', mimeType: 'image/png', data: '' },
      { type: 'image', mimeType: 'image/png', data: Buffer.alloc(5 * 1024 * 1024 + 1).toString('base64') },
      { type: 'audio', mimeType: 'audio/wav', data: 'AAAA' },
    ]);
    expect(images).toEqual([
      {
        mimeType: 'image/png',
        data: png,
        bytes: Buffer.from(png, 'base64').length,
        sha256: createHash('sha256').update(Buffer.from(png, 'base64')).digest('hex'),
      },
    ]);
    const many = Array.from({ length: 10 }, () => ({ type: 'image', mimeType: 'image/gif', data: png }));
    expect(contentImages(many)).toHaveLength(8);
  });
});
