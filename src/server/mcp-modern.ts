import { createMcpHandler, isLegacyRequest, type Server } from '@modelcontextprotocol/server';

/**
 * Serves one request of the 2026-07-28 revision (the per-request `_meta` envelope, no session) with a
 * fresh server from `makeServer`, or answers null for a request of the 2025 revisions (sessions,
 * `initialize`), which the caller serves as before. Replies are single JSON bodies; the handler is
 * closed once the reply is made.
 */
export async function serveModern(
  request: Request,
  parsedBody: unknown,
  makeServer: () => Server,
): Promise<Response | null> {
  if (await isLegacyRequest(request, parsedBody)) return null;
  const handler = createMcpHandler(makeServer, { legacy: 'reject', responseMode: 'json' });
  try {
    return await handler.fetch(request, { parsedBody });
  } finally {
    await handler.close();
  }
}
