import { posix } from 'node:path';

/** How many rounds of percent-decoding a path gets (`%2576` is `%76` is `v`). */
const DECODE_ROUNDS = 3;

/**
 * Format characters (category Cf), other default-ignorable code points and blanks (white space, the
 * braille blank): they render as nothing, or as a gap nobody would read as part of `v1`.
 */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{White_Space}\u2800]/gu;

/**
 * True for a path whose first segment starts with `v1` under any spelling: `/V1/runs`, `//v1/runs`,
 * `/v1x`, `/%76%31` (or encoded twice), full-width `/ｖ1`, `/v1./runs`, `/v1;x/runs`, `/v1\runs`. Such
 * paths belong to the API, so an unknown one is answered with the API's JSON 404, never the console's
 * HTML (no console route starts with `v1`). The path is judged after percent-decoding, NFKC
 * normalisation (full-width letters, digits and slashes become plain ones) and lower-casing, with
 * invisible characters dropped anywhere (`/v%E2%81%A01`: a word joiner, zero-width space, soft hyphen…)
 * and leading dots and blanks of the segment dropped (some servers and proxies ignore them). The first
 * segment is taken both as sent and with `.` and `..` segments resolved (`/x%2F..%2Fv1/runs`), since a
 * proxy may or may not resolve them; either starting with `v1` makes the path the API's.
 */
export function isApiPath(path: string): boolean {
  const plain = decoded(path)
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .replace(/\\/g, '/');
  return [plain, posix.normalize(`/${plain}`)].some((candidate) => {
    const first = candidate.split('/').find((segment) => segment !== '') ?? '';
    return first.replace(/^[\s.]+/, '').startsWith('v1');
  });
}

/** `path` percent-decoded until it no longer changes (at most DECODE_ROUNDS times). */
function decoded(path: string): string {
  let current = path;
  for (let round = 0; round < DECODE_ROUNDS && current.includes('%'); round++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch (error) {
      // A malformed escape is judged on what was decoded so far.
      if (!(error instanceof URIError)) throw error;
      return current;
    }
    if (next === current) return current;
    current = next;
  }
  return current;
}
