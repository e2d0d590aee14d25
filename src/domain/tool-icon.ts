/** The largest `data:` icon URL the runtime keeps (characters); a larger one is dropped. */
export const MAX_DATA_ICON_CHARS = 8 * 1024;

/** The largest `https:` icon URL the runtime keeps (characters). */
export const MAX_HTTPS_ICON_CHARS = 2048;

const DATA_ICON = /^data:image\/(?:png|jpeg|webp|gif);base64,[A-Za-z0-9+/]+={0,2}$/;

/**
 * The icon URL the console may show, or undefined: an `https:` URL (no credentials, at most 2048
 * characters) or a base64 `data:image/png|jpeg|webp|gif` URL of at most 8 KB. Anything else — SVG
 * (it can carry scripts), `javascript:`, `http:`, other schemes, malformed or oversized URLs — is dropped.
 */
export function safeIconSrc(src: unknown): string | undefined {
  if (typeof src !== 'string') return undefined;
  if (src.startsWith('data:')) {
    return src.length <= MAX_DATA_ICON_CHARS && DATA_ICON.test(src) ? src : undefined;
  }
  if (src.length > MAX_HTTPS_ICON_CHARS) return undefined;
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') return undefined;
  return url.href;
}

/**
 * The first safe icon of an MCP `icons` array (2025-11-25: `{ src, mimeType?, sizes?, theme? }`),
 * preferring one without a `theme` or with `theme: "light"`; undefined when none is safe.
 */
export function pickIcon(icons: unknown): string | undefined {
  if (!Array.isArray(icons)) return undefined;
  const safe: { src: string; theme: unknown }[] = [];
  for (const icon of icons as unknown[]) {
    if (typeof icon !== 'object' || icon === null) continue;
    const entry = icon as { src?: unknown; mimeType?: unknown; theme?: unknown };
    if (typeof entry.mimeType === 'string' && entry.mimeType.toLowerCase().includes('svg')) continue;
    const src = safeIconSrc(entry.src);
    if (src !== undefined) safe.push({ src, theme: entry.theme });
  }
  return (safe.find((i) => i.theme === undefined || i.theme === 'light') ?? safe[0])?.src;
}

/** `base` with `icon`: the first safe icon of `icons` (pickIcon), when there is one. */
export function withIcon<T extends object>(base: T, icons: unknown): T & { icon?: string } {
  const icon = pickIcon(icons);
  return icon === undefined ? base : { ...base, icon };
}
