import type { Client } from '@modelcontextprotocol/client';
import type { Logger } from '../log/logger.js';
import { describeError } from './errors.js';
import type { SendTracker } from './session-setup.js';
import type { ToolListWatch } from './tool-list-watch.js';
import type { TransportHandle } from './transport.js';

/** How long closing waits for messages still being sent (a cancellation's POST) before it closes anyway. */
const CLOSE_SEND_GRACE_MS = 2_000;

/** One connected client of an MCP connection; replaced by a fresh one after the server went away. */
export interface Session {
  readonly client: Client;
  readonly handle: TransportHandle;
  readonly sends: SendTracker;
  /** The server's tools/list_changed notifications, each followed by a relisting. */
  readonly tools: ToolListWatch;
  pid: number | null;
  /** Connected and not known to be gone. */
  alive: boolean;
  /** The transport closed (set even before the handshake finished). */
  ended: boolean;
}

/**
 * Ends a session: cancellations still being sent go out first (within a grace), then the server's
 * session ends (HTTP DELETE) and the client closes. Failures are logged at debug, never thrown.
 */
export async function disposeSession(
  session: Session,
  why: string,
  serverId: string,
  logger: Logger,
): Promise<void> {
  session.alive = false;
  session.tools.stop();
  await session.sends.settled(CLOSE_SEND_GRACE_MS);
  if (!session.ended)
    await session.handle.terminate().catch((error: unknown) => {
      logger.debug('MCP session DELETE failed', { server: serverId, error: describeError(error) });
    });
  try {
    await session.client.close();
  } catch (error) {
    logger.debug('MCP close failed', { server: serverId, why, error: describeError(error) });
  }
}
