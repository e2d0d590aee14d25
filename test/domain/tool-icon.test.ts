import { describe, expect, it } from 'vitest';
import { MAX_DATA_ICON_CHARS, pickIcon, safeIconSrc } from '../../src/domain/tool-icon.js';
import { toDescriptor } from '../../src/mcp/descriptor.js';

const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('safeIconSrc', () => {
  it('keeps https URLs and small base64 raster data URLs', () => {
    expect(safeIconSrc('https://example.com/icon.png')).toBe('https://example.com/icon.png');
    expect(safeIconSrc(PNG)).toBe(PNG);
    for (const type of ['jpeg', 'webp', 'gif']) {
      expect(safeIconSrc(`data:image/${type};base64,AAAA`)).toBe(`data:image/${type};base64,AAAA`);
    }
  });

  it('drops SVG, scripts, other schemes, credentials, malformed and oversized URLs', () => {
    for (const bad of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      'http://example.com/icon.png',
      'file:///etc/passwd',
      'data:image/svg+xml;base64,PHN2Zy8+',
      'data:text/html;base64,PGI+',
      'data:image/png,<svg onload=alert(1)>',
      'data:image/png;base64,AA"onerror="x',
      'https://user:secret@example.com/icon.png',
      'https://',
      '//example.com/icon.png',
      'icon.png',
      '',
      `data:image/png;base64,${'A'.repeat(MAX_DATA_ICON_CHARS)}`,
      `https://example.com/${'a'.repeat(3000)}`,
      42,
      null,
    ]) {
      expect(safeIconSrc(bad), String(bad).slice(0, 40)).toBeUndefined();
    }
  });
});

describe('pickIcon', () => {
  it('takes the first safe icon, preferring a light or theme-less one, and skips SVG by mime type', () => {
    expect(
      pickIcon([
        { src: 'javascript:alert(1)' },
        { src: 'https://example.com/a.svg', mimeType: 'image/svg+xml' },
        { src: 'https://example.com/dark.png', theme: 'dark' },
        { src: 'https://example.com/light.png', theme: 'light', sizes: ['16x16'] },
      ]),
    ).toBe('https://example.com/light.png');
    expect(pickIcon([{ src: 'https://example.com/dark.png', theme: 'dark' }])).toBe(
      'https://example.com/dark.png',
    );
    expect(pickIcon([{ src: 'javascript:alert(1)' }, 'x', null])).toBeUndefined();
    expect(pickIcon(undefined)).toBeUndefined();
  });

  it('puts a tool icon on its descriptor, never on what the model sees', () => {
    const tool = {
      name: 'list',
      inputSchema: { type: 'object' as const },
      icons: [{ src: PNG, mimeType: 'image/png' }],
    };
    expect(toDescriptor('demo', tool).icon).toBe(PNG);
    expect(toDescriptor('demo', { ...tool, icons: [{ src: 'javascript:alert(1)' }] })).not.toHaveProperty(
      'icon',
    );
  });
});
