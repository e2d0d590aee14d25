import { getRequestListener } from '@hono/node-server';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Hono } from 'hono';
import type { Logger } from '../log/logger.js';
import { ServerConfigError } from './config-error.js';
import type { AppEnv } from './context.js';
import { adapterErrorHandler, answerClientError } from './malformed.js';

/** Where to listen. */
export interface ListenOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
}

/** A listening server. */
export interface Listening {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Stops accepting connections, closes idle ones, and resolves once the others have ended (forced after a few seconds). */
  stopAccepting(): Promise<void>;
}

const FORCE_CLOSE_MS = 5_000;

/** True for an address of this machine's loopback interface. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** How the server listens: with auth or not, and where errors outside the app are logged. */
export interface ListenContext {
  readonly auth: boolean;
  readonly logger: Logger;
}

/**
 * Listens with `app`; without auth, only on a loopback host (else ServerConfigError UNSAFE_LISTEN).
 * Requests that never reach the app (malformed targets, parser errors) get a JSON error too (malformed.ts).
 */
export async function listen(
  app: Hono<AppEnv>,
  options: ListenOptions,
  { auth, logger }: ListenContext,
): Promise<Listening> {
  const host = options.host ?? '127.0.0.1';
  if (!auth && !isLoopback(host)) {
    throw new ServerConfigError(
      'UNSAFE_LISTEN',
      `refusing to listen on ${host} without tokens: give --tokens FILE (or AGENT_RUNTIME_TOKENS), or listen on 127.0.0.1`,
    );
  }
  // The adapter's listener answers every request itself, errors included: nothing to await here.
  const handle = getRequestListener(app.fetch, { errorHandler: adapterErrorHandler(logger) });
  const server = createServer((request, response) => void handle(request, response));
  server.on('clientError', answerClientError);
  const sockets = trackSockets(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    host: address.address,
    port: address.port,
    stopAccepting: () => stop(server, sockets),
  };
}

/** Open sockets and how many requests each is serving. */
type Sockets = Map<Socket, number>;

function trackSockets(server: Server): Sockets {
  const sockets: Sockets = new Map();
  server.on('connection', (socket: Socket) => {
    sockets.set(socket, 0);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    sockets.set(socket, (sockets.get(socket) ?? 0) + 1);
    response.once('close', () => {
      if (sockets.has(socket)) sockets.set(socket, Math.max(0, (sockets.get(socket) ?? 1) - 1));
    });
  });
  return sockets;
}

function stop(server: Server, sockets: Sockets): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    // Sockets not serving a request (idle keep-alive ones, and ones that never sent a request) are
    // closed now and as they become idle; stuck ones are cut after FORCE_CLOSE_MS.
    const sweep = (): void => {
      for (const [socket, busy] of sockets) if (busy === 0) socket.destroy();
    };
    const timer = setInterval(sweep, 25);
    const force = setTimeout(() => server.closeAllConnections(), FORCE_CLOSE_MS);
    server.close((error) => {
      clearInterval(timer);
      clearTimeout(force);
      if (error && (error as NodeJS.ErrnoException).code !== 'ERR_SERVER_NOT_RUNNING') reject(error);
      else resolve();
    });
    sweep();
  });
}
