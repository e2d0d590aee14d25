/**
 * `g2rain-agent-runtime/postgres`: the PostgreSQL store and the multi-worker queue (docs/scale-out.md). Kept
 * out of the main entry so that `pg` and `pg-boss` load only for those who use them. Every export
 * here is public API; named exports only.
 */
import './node-guard.js';
export {
  PostgresStore,
  createPostgresStore,
  parsePgUrl,
  pgliteQueryable,
  poolQueryable,
  pgMigrate,
  pgSchemaVersion,
  PG_MIGRATIONS,
  PG_SCHEMA_VERSION,
  DEFAULT_PG_SCHEMA,
  type PostgresStoreOptions,
  type CreatePostgresStoreOptions,
  type PostgresTarget,
  type PgLocation,
  type PGliteLike,
  type PgPoolLike,
  type PgMigration,
  type Queryable,
  type QueryRunner,
  type QueryResult,
} from './store/postgres/index.js';
export {
  RunQueue,
  RUN_QUEUE,
  type RunJob,
  type RunQueueOptions,
  type RunQueueWorkOptions,
} from './worker/queue.js';
export { RunWorker, type RunWorkerOptions } from './worker/worker.js';
export { startWorker, type StartWorkerOptions, type WorkerHandle } from './worker/start.js';
