import type { MiddlewareHandler } from 'hono';
import { ApiError } from './errors.js';

/** The deepest nesting of arrays and objects a JSON request body may have. */
export const MAX_JSON_DEPTH = 400;

/**
 * True when `text` nests deeper than `max` arrays/objects.
 * One linear pass over the characters that skips strings: it runs before any parser or validator,
 * several of which recurse per level (a few thousand levels overflow the stack).
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // a backslash escapes the next character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if ((ch === 0x5d || ch === 0x7d) && depth > 0) depth -= 1;
  }
  return false;
}

/**
 * Refuses, with 400 naming the limit, a JSON request body nesting deeper than `max`, before any route
 * parses it. Bodies sent as YAML (`POST /v1/flows`) have their own limits (docs/security.md). Hono
 * keeps the text it read, so the route's own parsing reads it again without a second stream.
 */
export function jsonDepthLimit(max: number = MAX_JSON_DEPTH): MiddlewareHandler {
  return async (c, next) => {
    const type = (c.req.header('content-type') ?? '').toLowerCase();
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || !type.includes('json')) return next();
    if (nestsDeeperThan(await c.req.text(), max))
      throw new ApiError(
        400,
        'BAD_REQUEST',
        `the JSON body nests deeper than ${max} levels of arrays and objects (the limit)`,
      );
    return next();
  };
}
