/**
 * True for a path under any spelling of `/v1` (`/V1/runs`, `//v1/runs`, `/%761`, `/v1./runs`,
 * `/v1;x/runs`, `/v1\runs`): such paths belong to the API, so an unknown one is answered with the
 * API's JSON 404, never the console's HTML. The first segment is judged after decoding, lower-casing,
 * dropping `;` parameters and surrounding dots and blanks (which some servers and proxies ignore).
 */
export function isApiPath(path: string): boolean {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch (error) {
    // A malformed escape is still judged on its raw spelling.
    if (!(error instanceof URIError)) throw error;
  }
  const first = decoded.split(/[/\\]+/).find((segment) => segment !== '') ?? '';
  const name = (first.split(';')[0] ?? '').replace(/^[\s.]+|[\s.]+$/g, '').toLowerCase();
  return name === 'v1';
}
