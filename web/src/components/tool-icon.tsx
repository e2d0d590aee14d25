/** The largest `data:` icon the console shows (characters); the runtime drops larger ones already. */
const MAX_DATA_ICON = 8 * 1024;
const DATA_ICON = /^data:image\/(?:png|jpeg|webp|gif);base64,[A-Za-z0-9+/]+={0,2}$/;

/**
 * The icon URL the console may load, or null: an `https:` URL or a small base64 PNG/JPEG/WebP/GIF
 * data URL — never SVG, `javascript:` or another scheme (the runtime filters too; this checks again).
 */
export function safeIcon(src: unknown): string | null {
  if (typeof src !== 'string') return null;
  if (src.startsWith('data:')) return src.length <= MAX_DATA_ICON && DATA_ICON.test(src) ? src : null;
  try {
    return new URL(src).protocol === 'https:' ? src : null;
  } catch {
    return null;
  }
}

/** An MCP tool's or server's icon: a fixed-size image, decorative (the name beside it says what it is). */
export function ToolIcon({ src }: { src: string | null }) {
  const safe = safeIcon(src);
  if (safe === null) return null;
  return (
    <img
      className="tool-icon"
      data-testid="tool-icon"
      src={safe}
      alt=""
      width={16}
      height={16}
      referrerPolicy="no-referrer"
      loading="lazy"
      decoding="async"
    />
  );
}
