import { hash } from 'node:crypto';
import { MAX_TOOL_IMAGE_BYTES, MAX_TOOL_IMAGES, type ToolImage } from '../domain/tool-image.js';
import type { McpContentBlock } from './types.js';

/**
 * A tool result's content blocks as the runtime keeps them (the result, evidence, trace and the model):
 * binary data never becomes text. An `image` or `audio` block keeps its type and `mimeType` and gets
 * `bytes` (the decoded size) and `sha256` (the digest of the decoded bytes) instead of its base64
 * `data`; an embedded `resource` keeps its `uri`,
 * `mimeType` and `text` (a text resource stays whole, so its values can be cited), and a binary one
 * gets `bytes` instead of its `blob`. `text` and `resource_link` blocks (a link is read with
 * `builtin_resource_read`) and unknown types are kept as they came, minus any binary field.
 */
export function contentBlocks(blocks: readonly McpContentBlock[]): McpContentBlock[] {
  return blocks.map(contentBlock);
}

function contentBlock(block: McpContentBlock): McpContentBlock {
  switch (block.type) {
    case 'text':
    case 'resource_link':
      return block;
    case 'image':
    case 'audio': {
      const { data, ...rest } = block;
      if (typeof data !== 'string') return { ...rest, bytes: 0 };
      const decoded = Buffer.from(data, 'base64');
      return { ...rest, bytes: decoded.length, sha256: hash('sha256', decoded, 'hex') };
    }
    case 'resource': {
      const resource = block.resource;
      if (typeof resource !== 'object' || resource === null) return block;
      const { blob, ...kept } = resource as Record<string, unknown>;
      return blob === undefined ? block : { ...block, resource: { ...kept, bytes: base64Bytes(blob) } };
    }
    default: {
      const { data, blob, ...rest } = block;
      if (data === undefined && blob === undefined) return block;
      return { ...rest, bytes: base64Bytes(data ?? blob) };
    }
  }
}

/**
 * A tool's `structuredContent` with binary data taken out, as the runtime keeps it (the result,
 * evidence, trace and the model): every object in it shaped like a media content block (`type`
 * `image` or `audio` with a string `data`, or an object with a string `blob`, such as an embedded
 * resource) is replaced the way contentBlocks replaces a block (`bytes` and `sha256` instead of `data`,
 * `bytes` instead of `blob`); everything else is kept as it came. Servers such as the reference
 * filesystem server repeat their image blocks in `structuredContent`; without this the image would
 * reach the model and the trace as base64 text.
 */
export function structuredWithoutBinary(value: unknown, depth = 0): unknown {
  if (depth > 64 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => structuredWithoutBinary(item, depth + 1));
  const record = value as Record<string, unknown>;
  if ((record.type === 'image' || record.type === 'audio') && typeof record.data === 'string')
    return contentBlock(record as McpContentBlock);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(record)) {
    if (key === 'blob' && typeof item === 'string') out.bytes = base64Bytes(item);
    else out[key] = structuredWithoutBinary(item, depth + 1);
  }
  return out;
}

/**
 * The images of a tool result that a model may be shown (each with its data, size and digest, in the
 * order of the content): `image` blocks with base64 `data` and an `image/*` `mimeType`, at most
 * MAX_TOOL_IMAGE_BYTES each and MAX_TOOL_IMAGES in all; the others stay placeholders only.
 */
export function contentImages(blocks: readonly McpContentBlock[]): ToolImage[] {
  const images: ToolImage[] = [];
  for (const block of blocks) {
    if (images.length === MAX_TOOL_IMAGES) break;
    const { data, mimeType } = block;
    if (block.type !== 'image' || typeof data !== 'string' || typeof mimeType !== 'string') continue;
    if (!mimeType.toLowerCase().startsWith('image/')) continue;
    const decoded = Buffer.from(data, 'base64');
    if (decoded.length === 0 || decoded.length > MAX_TOOL_IMAGE_BYTES) continue;
    // Re-encoded from the decoded bytes: what the model gets is exactly what the digest names.
    images.push({
      mimeType,
      data: decoded.toString('base64'),
      bytes: decoded.length,
      sha256: hash('sha256', decoded, 'hex'),
    });
  }
  return images;
}

/** The decoded size of a base64 string (0 for anything else). */
function base64Bytes(value: unknown): number {
  if (typeof value !== 'string') return 0;
  const clean = value.replace(/[^A-Za-z0-9+/]/g, '');
  return Math.floor((clean.length * 3) / 4);
}
