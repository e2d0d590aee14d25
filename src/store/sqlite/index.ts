/** The SQLite store (node:sqlite): the default, embedded store. */
export {
  SqliteStore,
  type SqliteStoreOptions,
  type SqliteStoreInfo,
  type Durability,
} from './sqlite-store.js';
export { MIGRATIONS, SCHEMA_VERSION, migrate, schemaVersion, type Migration } from './schema.js';
