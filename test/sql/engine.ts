// The engine adapter of the in-database suite (suite.ts): what differs between PostgreSQL and
// MariaDB, and the figures every check shares.
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
