/** The PostgreSQL store: PostgresStore, its query interface and migrations. Named exports only. */
export { PostgresStore, type PostgresStoreOptions } from './postgres-store.js';
export {
  createPostgresStore,
  parsePgUrl,
  type CreatePostgresStoreOptions,
  type PgLocation,
  type PostgresTarget,
} from './connect.js';
export {
  pgliteQueryable,
  poolQueryable,
  type PGliteLike,
  type PgPoolLike,
  type QueryResult,
  type QueryRunner,
  type Queryable,
} from './queryable.js';
export {
  DEFAULT_PG_SCHEMA,
  PG_MIGRATIONS,
  PG_SCHEMA_VERSION,
  pgMigrate,
  pgSchemaVersion,
  type PgMigration,
} from './schema.js';
