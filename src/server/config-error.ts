/**
 * The server's configuration errors: one class, `ServerConfigError`, told apart by `code`. Thrown
 * before the server answers anything; `serve` reports them as usage errors (exit 2).
 */
import { AgentRuntimeError } from '../domain/agent-runtime-error.js';

/** What is wrong with the server's configuration. */
export type ServerConfigErrorCode =
  /** Listening without tokens on an address other than loopback: refused (docs/api.md). */
  | 'UNSAFE_LISTEN'
  /** A token file or `AGENT_RUNTIME_TOKENS` value that cannot be used (the message names the source and each problem). */
  | 'TOKENS';

/** The `name` by code: the class each code had before codes. */
const NAMES: Record<ServerConfigErrorCode, string> = {
  UNSAFE_LISTEN: 'UnsafeListenError',
  TOKENS: 'TokenConfigError',
};

/** A server configuration that cannot be used, with the reason as `code`. */
export class ServerConfigError extends AgentRuntimeError {
  declare readonly code: ServerConfigErrorCode;

  constructor(code: ServerConfigErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.name = NAMES[code];
  }
}
