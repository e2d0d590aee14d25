/** Durable storage of runs: the Store interface, its implementations and `openStore`. Named exports only. */
export {
  StoreError,
  type Commit,
  type NewRun,
  type RunFilter,
  type RunHead,
  type RunPatch,
  type RunRecord,
  type RunStatus,
  type Store,
  type StoreErrorCode,
  type StoreErrorOptions,
  type StoredEvent,
  type StoredMessage,
  type ThreadFilter,
  type ThreadRecord,
  type Usage,
} from './store.js';
export type {
  AttemptResult,
  ClaimedDelivery,
  DeliveryFilter,
  DeliveryKey,
  NewDelivery,
  WebhookOutbox,
} from './outbox.js';
export type { WebhookDelivery } from '../records/webhook-delivery.js';
export { MemoryStore, type MemoryStoreOptions } from './memory.js';
export {
  SqliteStore,
  type SqliteStoreOptions,
  type SqliteStoreInfo,
  type Durability,
} from './sqlite/index.js';
export { SCHEMA_VERSION } from './sqlite/index.js';
export {
  DEFAULT_DB_URL,
  isStore,
  openStore,
  parseStoreUrl,
  resolveDbUrl,
  type OpenStoreOptions,
  type StoreLocation,
} from './open.js';
