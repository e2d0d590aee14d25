import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Reply, SseEvent } from '../../../src/testing/fake-model/wire.js';

export type { Reply, SseEvent };

/** One request the fake provider received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (tests read into it freely). */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A loopback HTTP server speaking a provider's wire format from a list of replies. */
export interface FakeProvider {
  /** `http://127.0.0.1:<port><prefix>`, e.g. the `/v1` API root. */
  url(prefix?: string): string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * Starts a fake provider on 127.0.0.1 (random port). Request i gets `replies[i]` (or what `replies`
 * returns for it); a request past the list gets a 500 that says so, so a test never hangs on it.
 */
export async function startFakeProvider(
  replies: Reply[] | ((request: RecordedRequest, index: number) => Reply),
): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    void readBody(req).then((text) => {
      const request: RecordedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: text === '' ? null : JSON.parse(text),
      };
      const index = requests.push(request) - 1;
      const reply = typeof replies === 'function' ? replies(request, index) : replies[index];
      answer(
        res,
        reply ?? { status: 500, json: { error: { message: `fake provider has no reply ${index + 1}` } } },
      );
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: (prefix = '/v1') => `http://127.0.0.1:${port}${prefix}`,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

function answer(res: ServerResponse, reply: Reply): void {
  if ('hang' in reply) return;
  if ('destroy' in reply) {
    res.socket?.destroy();
    return;
  }
  if ('json' in reply) {
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify(reply.json));
    return;
  }
  res.writeHead(reply.status ?? 200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    ...reply.headers,
  });
  reply.sse.forEach((event, i) => {
    if (reply.hangAfter !== undefined && i >= reply.hangAfter) return;
    const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
    res.write(`${event.event ? `event: ${event.event}\n` : ''}data: ${data}\n\n`);
  });
  if (reply.hangAfter === undefined) res.end();
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
