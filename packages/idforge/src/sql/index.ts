/**
 * `idforge/sql`: idforge's functions inside the database (docs/in-database.md). The SQL of
 * PostgreSQL and MariaDB generated from any Snowflake layout (`sqlFunctions`, `sqlText`) and
 * the port a store applies it through (`SqlFunctionsTarget`). Pure: no I/O.
 */
export {
  type LayoutSql,
  layoutKey,
  layoutSql,
  nodeFieldsOf,
  type SqlFunction,
  type SqlNodeField,
} from './layout-sql.js';
export { MARIADB_DATABASE_IDENTITY } from './mariadb.js';
export {
  type InstalledSqlFunctions,
  isSameInstall,
  type SqlApplyResult,
  type SqlFunctionsTarget,
} from './ports.js';
export { PG_DATABASE_IDENTITY } from './postgres.js';
export {
  SQL_ENGINES,
  SQL_FUNCTIONS_VERSION,
  type SqlEngine,
  type SqlFunctionsOptions,
  type SqlScript,
  sqlFunctions,
  sqlText,
} from './script.js';
