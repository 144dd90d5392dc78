/**
 * The port a store implements to hold idforge's SQL functions (`idforge sql --store URL
 * --apply | --remove`): PostgreSQL and MariaDB in @idforge/stores. SQLite cannot hold
 * persistent functions; its connections get them from `registerIdforgeFunctions`.
 */
import type { SqlEngine, SqlScript } from './script.js';

/** What the version row of an installed database says. */
export interface InstalledSqlFunctions {
  readonly version: number;
  readonly layout: string;
  readonly layoutKey: string;
  /** The node setting, if one is written. */
  readonly node: number | undefined;
}

/** What {@link SqlFunctionsTarget.apply} did. */
export interface SqlApplyResult {
  /**
   * 'installed' (nothing was there), 'upgraded' (another version, layout or node was there:
   * every function replaced, the counter reset when the layout's bits changed), or
   * 'unchanged' (the same version, layout and node: nothing was run but the check).
   */
  readonly action: 'installed' | 'upgraded' | 'unchanged';
  readonly previous: InstalledSqlFunctions | undefined;
  /** Whether the Snowflake counter was dropped and created again (the layout changed). */
  readonly counterReset: boolean;
}

/**
 * A database that holds idforge's functions. `apply` installs or upgrades: PostgreSQL in one
 * transaction (a failure leaves the old version as it was); MariaDB, whose DDL commits each
 * statement, compiles every new function under a scratch name first (a function that does not
 * compile leaves the old version untouched), then replaces them, the version row last.
 * `remove` drops every object the install creates and nothing else; resolves false when none
 * was there. Operational failures reject with the store's typed errors
 * (`StoreUnavailableError`, …); a script of another engine is a `RangeError`.
 */
export interface SqlFunctionsTarget {
  readonly engine: SqlEngine;
  /** The server's address, without credentials. */
  readonly address: string;
  installed(): Promise<InstalledSqlFunctions | undefined>;
  apply(script: SqlScript): Promise<SqlApplyResult>;
  remove(script: SqlScript): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Whether applying `script` over `was` changes nothing: the same version and layout bits, and
 * the same node (or no node given). Pure.
 */
export function isSameInstall(was: InstalledSqlFunctions | undefined, script: SqlScript): boolean {
  return (
    was !== undefined &&
    was.version === script.version &&
    was.layoutKey === script.layoutKey &&
    (script.node === undefined || script.node === was.node)
  );
}
