import { connect, type Socket } from 'node:net';

/** One SSE message as read off the wire. */
export interface WireMessage {
  id?: string;
  event?: string;
  data?: string;
}

/**
 * An event stream read over a raw TCP socket, so the test decides when bytes are taken off the
 * connection: `pause()` stops reading (the server's writes back up as they would for a slow reader).
 */
export interface RawStream {
  /** The HTTP status of the answer. */
  readonly status: number;
  pause(): void;
  resume(): void;
  /** Messages parsed so far (comments left out). */
  readonly messages: WireMessage[];
  /** Resolves when the server closed the connection. */
  readonly ended: Promise<void>;
  close(): void;
}

/** Opens `GET path` with `headers` over a raw socket and resolves once the status line arrived. */
export function openRawStream(
  url: string,
  path: string,
  headers: Record<string, string>,
): Promise<RawStream> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect({ host: hostname, port: Number(port) });
  const lines = Object.entries({ host: `${hostname}:${port}`, accept: 'text/event-stream', ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(`GET ${path} HTTP/1.1\r\n${lines}\r\n`);
  const messages: WireMessage[] = [];
  let buffer = '';
  let status = 0;
  let inBody = false;
  let chunked = '';
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return new Promise<RawStream>((resolve, reject) => {
    socket.once('error', reject);
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => {
      if (!inBody) {
        buffer += text;
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        status = Number(/^HTTP\/1\.1 (\d+)/.exec(buffer)?.[1] ?? 0);
        chunked = buffer.slice(end + 4);
        buffer = '';
        inBody = true;
        resolve({
          status,
          pause: () => socket.pause(),
          resume: () => socket.resume(),
          messages,
          ended,
          close: () => socket.destroy(),
        });
      } else chunked += text;
      chunked = dechunk(chunked, (body) => {
        buffer += body;
        buffer = parseFrames(buffer, messages);
      });
    });
  });
}

/** Takes the complete chunks of a chunked body off `text`; returns what is left. */
function dechunk(text: string, onBody: (body: string) => void): string {
  let rest = text;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    if (eol < 0) return rest;
    const size = Number.parseInt(rest.slice(0, eol), 16);
    if (rest.length < eol + 2 + size + 2) return rest;
    onBody(rest.slice(eol + 2, eol + 2 + size));
    rest = rest.slice(eol + 2 + size + 2);
  }
}

/** Parses the complete SSE frames of `buffer` (bytes as latin1) into `out`; returns the incomplete rest. */
function parseFrames(buffer: string, out: WireMessage[]): string {
  let rest = buffer;
  for (let end = rest.indexOf('\n\n'); end >= 0; end = rest.indexOf('\n\n')) {
    const frame = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const message: WireMessage = {};
    for (const line of frame.split('\n')) {
      if (line.startsWith('id: ')) message.id = line.slice(4);
      else if (line.startsWith('event: ')) message.event = line.slice(7);
      else if (line.startsWith('data: ')) {
        const data = Buffer.from(line.slice(6), 'latin1').toString('utf8');
        message.data = message.data === undefined ? data : `${message.data}\n${data}`;
      }
    }
    if (message.data !== undefined) out.push(message);
  }
  return rest;
}
