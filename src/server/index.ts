/**
 * The HTTP API (docs/api.md): `createServer` with its flow registry and token configuration. Planned as
 * the package's `./server` subpath export.
 */
import '../node-guard.js';
export { createServer, type ApiServer, type ServerOptions } from './app.js';
export { FlowRegistry, type FlowInfo, type FlowRegistryOptions, type FlowOrigin } from './flows.js';
export {
  loadTokenFile,
  tokensFromEnv,
  parseTokens,
  hashToken,
  ROLES,
  type Role,
  type TokenEntry,
  type Principal,
} from './tokens.js';
export { IdempotencyCache, type IdempotencyOptions } from './idempotency.js';
export { isLoopback, type Listening, type ListenOptions } from './listen.js';
export { ApiError, type ApiErrorBody, type ApiErrorCode } from './errors.js';
export { ServerConfigError, type ServerConfigErrorCode } from './config-error.js';
export { mountConsole, consoleMiddleware, type ConsoleOptions } from './console.js';
