// The engine adapter of the in-database suite (suite.ts): what differs between PostgreSQL and
// MariaDB, and the figures every check shares.
import assert from 'node:assert/strict';

/** One connection: rows as objects of text values. */
export interface Session {
  rows(sql: string): Promise<Record<string, string>[]>;
  close(): Promise<void>;
}

/** What differs between the engines. */
export interface Engine {
  readonly name: 'postgres' | 'mariadb';
  /** The URL of a database of the test's own, created by `create`. */
  readonly url: string;
  create(): Promise<void>;
  drop(): Promise<void>;
  session(): Promise<Session>;
  /** `SELECT <expr> AS v FROM <series(n)>` yields n rows. */
  series(n: number): string;
  /** A timestamp literal of unix ms (UTC). */
  ts(ms: number): string;
  /** The unix ms of a timestamp expression, as text. */
  ms(expr: string): string;
  /** An expression as text. */
  text(expr: string): string;
  /** Sets (or clears, null) the session's clock of the functions. */
  setNow(ms: number | null): string;
  /** A statement bounding the session's waits to about 2 s. */
  readonly boundWaits: string;
  /** SELECT lowest, highest (as text) of a bounds function between two literals. */
  bounds(kind: 'uuidv7' | 'snowflake', from: string, to: string): string;
  /** Names of the objects named idforge% in the database (tables, sequences, functions). */
  objects(s: Session): Promise<string[]>;
  /** The last unix ms its timestamps hold (MariaDB's DATETIME ends with 9999). */
  readonly maxTimeMs: number;
  /** Runs a script as printed by `idforge sql` with the engine's own client (psql, mariadb). */
  runScript(text: string): Promise<void>;
  /** Creates a function of the user's called idforge_mine (remove must leave it). */
  readonly userFunction: string;
}

export const NODE = 5;
export const SESSIONS = 8;
export const CALLS = 10_000;

/** The column `v` of a statement's rows. */
export async function column(s: Session, sql: string): Promise<string[]> {
  return (await s.rows(sql)).map((r) => r.v!);
}

/**
 * Asserts that UUIDv7s drawn with the clock frozen at `ms` use counter 4095 in that
 * millisecond and that the next one carries to counter 0 of the next millisecond.
 */
export function assertCounterCarries(ids: readonly string[], ms: number): void {
  const parts = ids.map((u) => {
    const hex = u.replaceAll('-', '');
    return {
      ms: Number.parseInt(hex.slice(0, 12), 16),
      ctr: Number.parseInt(hex.slice(13, 16), 16),
    };
  });
  const last = parts.findIndex((p) => p.ms === ms && p.ctr === 4095);
  assert.ok(last >= 0, 'counter 4095 used in the frozen millisecond');
  assert.deepEqual(parts[last + 1], { ms: ms + 1, ctr: 0 });
}
