/**
 * The server's configuration errors: one class, `ServerConfigError`, told apart by `code`. Thrown
 * before the server answers anything; `serve` reports them as usage errors (exit 2).
 */

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
export class ServerConfigError extends Error {
  readonly code: ServerConfigErrorCode;

  constructor(code: ServerConfigErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = NAMES[code];
    this.code = code;
  }
}

/**
 * Listening without tokens on a non-loopback address: refused (docs/api.md).
 * @deprecated Catch `ServerConfigError` and test `code === 'UNSAFE_LISTEN'`.
 */
export class UnsafeListenError extends ServerConfigError {
  constructor(message: string, options?: ErrorOptions) {
    super('UNSAFE_LISTEN', message, options);
  }

  static override [Symbol.hasInstance](value: unknown): value is UnsafeListenError {
    return value instanceof ServerConfigError && value.code === 'UNSAFE_LISTEN';
  }
}

/**
 * A token file or `AGENT_RUNTIME_TOKENS` value that cannot be used.
 * @deprecated Catch `ServerConfigError` and test `code === 'TOKENS'`.
 */
export class TokenConfigError extends ServerConfigError {
  constructor(message: string, options?: ErrorOptions) {
    super('TOKENS', message, options);
  }

  static override [Symbol.hasInstance](value: unknown): value is TokenConfigError {
    return value instanceof ServerConfigError && value.code === 'TOKENS';
  }
}
