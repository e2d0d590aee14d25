import { RequestError } from '@hono/node-server';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from '../log/logger.js';
import { ApiError } from './errors.js';

/**
 * Answers for requests that never reach the app, so that every answer of the server has the API's
 * JSON error body: a request target the Node adapter refuses (a backslash in the path, a bad Host)
 * and a request the HTTP parser refuses (bytes outside ASCII in the request line, huge headers).
 * Neither echoes what the client sent.
 */

/**
 * The adapter's error handler: a request that could not be turned into a `Request` is 400
 * BAD_REQUEST; anything else (the app failing outside its own error handling) is a logged 500.
 */
export function adapterErrorHandler(logger: Logger): (error: unknown) => Response {
  return (error) => {
    if (error instanceof RequestError)
      return jsonError(new ApiError(400, 'BAD_REQUEST', 'malformed request target'));
    logger.error('HTTP internal error outside the app', { error });
    return jsonError(new ApiError(500, 'INTERNAL', 'internal error'));
  };
}

function jsonError(error: ApiError): Response {
  return new Response(JSON.stringify(error.body()), {
    status: error.status,
    headers: { 'Content-Type': 'application/json' },
  });
}

/** The status Node itself would answer a parser error with (408, 413, 431, else 400). */
function parserStatus(code: string | undefined): ContentfulStatusCode {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return 413;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

/**
 * A `clientError` listener answering like Node's default (same statuses, then the socket is
 * destroyed) but with a JSON body. Nothing is written when the peer is gone or a response to an
 * earlier request on the socket has already started.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // `_httpMessage` is the response in flight on this socket (Node's own default checks it too).
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
    const status = parserStatus(error.code);
    const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST';
    const body = JSON.stringify(new ApiError(status, code, 'malformed HTTP request').body());
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Bad Request'}\r\n` +
        'Content-Type: application/json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}
