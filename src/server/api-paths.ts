/**
 * True for a path under any spelling of `/v1` (`/V1/runs`, `//v1/runs`, `/%761`): such paths belong
 * to the API, so an unknown one is answered with the API's JSON 404, never the console's HTML.
 */
export function isApiPath(path: string): boolean {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch (error) {
    // A malformed escape is still judged on its raw spelling.
    if (!(error instanceof URIError)) throw error;
  }
  return /^\/+v1(?:[/\\]|$)/i.test(decoded.replace(/\\/g, '/'));
}
