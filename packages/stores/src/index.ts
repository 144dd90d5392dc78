/**
 * `@idforge/stores`: where idforge keeps leases, marks, segments, counters and tickets. Opening
 * by URL goes through the backend registry (backends.ts, one descriptor per backend folder),
 * whose openers import a driver only when its scheme is used. This file re-exports only, by name.
 *
 * Every store class can also be built from a client the application already has (a `pg.Pool`,
 * a mysql2 pool, an ioredis client, an etcd3 client, a better-sqlite3 `Database`), one shape
 * for all: `new PostgresLeaseStore({ pool, namespace })`, `new RedisLeaseStore({ client })`,
 * `new SqliteLeaseStore({ database })`. Such a store never closes the caller's client. The
 * declarations describe those clients structurally (driver-types.ts): they name no driver, so
 * a project compiles against them whichever drivers it has installed.
 */

// The ticket-server port and its setup rule live in idforge/sequences; re-exported beside
// openTicketServers so that opening and setting up servers needs one import. So does the store
// used when none is named, declared once in the library (idforge/cli's DEFAULT_STORE is it too).
// StoreUnavailableError is every store port's failure (defined in the library's core, since
// its ports name it); it is re-exported here beside the errors only the stores throw.
export {
  DEFAULT_STORE_URL,
  type PlannableTicketServer,
  StoreUnavailableError,
  setupTicketServers,
} from 'idforge/sequences';
export {
  type Backend,
  type BackendOpeners,
  type BackendPort,
  type BackendRules,
  CONNECT_TIMEOUT_MS,
  type UrlRules,
} from './backend.js';
export {
  backendOf,
  backendOpens,
  backends,
  backendsWith,
  registerBackend,
} from './backends.js';
// What an application's own client must offer, by driver (no driver package is named).
export type {
  EtcdClient,
  MysqlPromisePool,
  PgPool,
  PgPoolClient,
  RedisClient,
  SqliteDatabase,
} from './driver-types.js';
export {
  DriverBindingError,
  DriverMissingError,
  NodeInUseError,
  StoreAuthError,
  StoreNotMigratedError,
  StorePathError,
  type StorePathReason,
} from './errors.js';
export type { EtcdClientOptions, EtcdStoreOptions } from './etcd/connect.js';
export { EtcdLeaseStore, openEtcdLeaseStore } from './etcd/lease-store.js';
export type { FileStoreOptions } from './file/connect.js';
export { FileLeaseStore, openFileLeaseStore } from './file/lease-store.js';
export type { MysqlClientOptions, MysqlStoreOptions } from './mysql/connect.js';
export {
  type MysqlGapFreeOptions,
  MysqlGapFreeStore,
  type MysqlTransactionConnection,
} from './mysql/gap-free.js';
export { MysqlSegmentStore, openMysqlSegmentStore } from './mysql/segment-store.js';
export { MysqlSqlFunctions, openMysqlSqlFunctions } from './mysql/sql-functions.js';
export { MysqlTicketServer, openMysqlTicketServer } from './mysql/ticket-server.js';
export {
  checkPortUrl,
  closeTicketServers,
  lazyTicketServer,
  migrateStore,
  type OpenStoreOptions,
  openBackfillTarget,
  openBenchEngine,
  openCounterStore,
  openLeaseStore,
  openMarkStore,
  openSegmentStore,
  openSqlFunctions,
  openTicketServer,
  openTicketServers,
  type TicketServerOptions,
} from './open.js';
export {
  type OpenedSequence,
  type OpenSequenceOptions,
  type OpenSequenceSourceOptions,
  openSequence,
  openSequenceSource,
} from './open-sequence.js';
export type { PostgresClientOptions, PostgresStoreOptions } from './postgres/connect.js';
export {
  type PgTransactionClient,
  type PostgresGapFreeOptions,
  PostgresGapFreeStore,
} from './postgres/gap-free.js';
export { openPostgresLeaseStore, PostgresLeaseStore } from './postgres/lease-store.js';
export { openPostgresMarkStore, PostgresMarkStore } from './postgres/mark-store.js';
export { openPostgresSegmentStore, PostgresSegmentStore } from './postgres/segment-store.js';
export { openPostgresSqlFunctions, PostgresSqlFunctions } from './postgres/sql-functions.js';
export { openPostgresTicketServer, PostgresTicketServer } from './postgres/ticket-server.js';
export type { RedisClientOptions, RedisStoreOptions } from './redis/connect.js';
export { openRedisCounterStore, RedisCounterStore } from './redis/counter-store.js';
export { openRedisLeaseStore, RedisLeaseStore } from './redis/lease-store.js';
export {
  knownSchemes,
  roleSchemes,
  STORE_ROLES,
  type StoreRole,
  type StoreRoleName,
  schemePrefix,
  sequenceKind,
  sequenceKindForms,
  servesRole,
  wrongSchemeMessage,
} from './roles.js';
export type { SqliteClientOptions } from './sqlite/connect.js';
export {
  registerIdforgeFunctions,
  type SqliteFunctionHost,
  type SqliteFunctionsOptions,
} from './sqlite/functions.js';
export { type SqliteGapFreeOptions, SqliteGapFreeStore } from './sqlite/gap-free.js';
export {
  openSqliteLeaseStore,
  SqliteLeaseStore,
  type SqliteLeaseStoreOptions,
} from './sqlite/lease-store.js';
export {
  openSqliteMarkStore,
  SqliteMarkStore,
  type SqliteMarkStoreOptions,
} from './sqlite/mark-store.js';
export { openSqliteSegmentStore, SqliteSegmentStore } from './sqlite/segment-store.js';
export type { StoreFileOptions } from './store-path.js';
export { redactUrl, storeScheme } from './url.js';
