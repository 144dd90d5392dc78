/**
 * Who mints `idforge_snowflake()` of one (layout, node) on one SQLite file (functions.ts).
 *
 * In a thread, every connection to the file shares one generator, found by the file's identity
 * (device and inode: `app.db`, `./app.db` and a symlink are one file), never by the name it was
 * opened under. Across threads and processes nothing can be shared while a statement runs, so
 * one (file, layout, node) has one minter at a time: the first to mint takes an exclusive
 * SQLite lock on a claim file beside the database (`<file>-idforge-<node>-<layout hash>`), held
 * by a connection of its own until its thread or process ends (the OS drops it on a crash).
 * Another thread or process asking for the same claim is refused at once with
 * `NodeInUseError`. SQLite's locks are the database's own: they hold across the threads of a
 * process (one SQLite library, one lock table) and across processes (POSIX locks), which a
 * module variable or a lock file's existence would not.
 *
 * The claim file also keeps a high-water mark: before a tick past the mark is issued, the
 * mark moves {@link MARK_AHEAD_MS} ahead and is written (a write per 100 ms at most). The next
 * holder waits until its clock is past the mark, so a thread that takes the node over within
 * the last one's tick (or behind its clock) never repeats its IDs; a clock further behind than
 * {@link MARK_TOLERANCE_MS} is `BehindMarkError`.
 */
import { createHash } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { Clock } from 'idforge';
import { BehindMarkError } from 'idforge/coord';
import { NodeInUseError } from '../errors.js';
import { storeError } from '../store-error.js';
import { sqliteSite } from './rules.js';

/** How far ahead of the tick being issued the mark is written. */
export const MARK_AHEAD_MS = 100;
/** The longest a new holder waits for its clock to pass the last holder's mark. */
export const MARK_TOLERANCE_MS = 1000;

/** Where a connection's database is: a key for the process's generators, the claim's path. */
export interface FileIdentity {
  readonly key: string;
  /** The database's real path; undefined for an in-memory or temporary database. */
  readonly path: string | undefined;
}

/**
 * The identity of the database a connection opened as `name` (resolved against the current
 * directory, as better-sqlite3 did a moment ago). An in-memory or temporary database is no
 * file: its name is its key, and nothing outside this thread can reach it.
 */
export function fileIdentity(name: string, memory: boolean): FileIdentity {
  if (memory || name === '' || name === ':memory:')
    return { key: `memory:${name}`, path: undefined };
  const st = statSync(name, { bigint: true });
  return { key: `file:${st.dev}:${st.ino}`, path: realpathSync(name) };
}

/**
 * better-sqlite3's `Database` class, typed without its package so that this module's
 * declarations name no driver (a user of another store does not install it).
 */
type DatabaseClass = new (path: string, options: { timeout: number }) => unknown;

/** A held claim: `admit` before each new tick keeps the mark ahead of the IDs issued. */
export interface NodeClaim {
  admit(tickStartMs: number): void;
}

const BUSY = /^SQLITE_BUSY/;

/**
 * Takes the claim of (`path`, `layoutKey`, `node`) with a connection made by `Ctor` (the
 * caller's better-sqlite3), then waits for `clock` to pass the last holder's mark. Throws
 * `NodeInUseError` when another thread or process holds it, `BehindMarkError` when the clock
 * is more than {@link MARK_TOLERANCE_MS} behind the mark, `StoreUnavailableError` when the
 * claim file cannot be written.
 */
export function takeNodeClaim(
  Ctor: DatabaseClass,
  path: string,
  layout: { name: string; key: string; unitMs: number },
  node: number,
  clock: Clock,
): NodeClaim {
  const hash = createHash('sha256').update(layout.key).digest('hex').slice(0, 12);
  const claimPath = `${path}-idforge-${node}-${hash}`;
  const address = `sqlite:${claimPath}`;
  let db: Database.Database | undefined;
  let markMs: number;
  try {
    db = new Ctor(claimPath, { timeout: 0 }) as Database.Database;
    // Exclusive locking mode keeps the lock the first write takes until the connection
    // closes; synchronous OFF: the OS keeps the mark through a process crash, and after a
    // host crash the clock is far past it.
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('synchronous = OFF');
    db.exec('BEGIN EXCLUSIVE');
    db.exec(`CREATE TABLE IF NOT EXISTS idforge_node_mark (
  one INTEGER PRIMARY KEY CHECK (one = 1), mark_ms INTEGER NOT NULL)`);
    db.exec('INSERT INTO idforge_node_mark VALUES (1, 0) ON CONFLICT (one) DO UPDATE SET one = 1');
    markMs = Number(db.prepare('SELECT mark_ms FROM idforge_node_mark').pluck().get());
    db.exec('COMMIT');
  } catch (error) {
    db?.close();
    if (BUSY.test(String((error as { code?: unknown })?.code))) {
      throw new NodeInUseError(path, layout.name, node, claimPath);
    }
    throw storeError(sqliteSite(address), 'claim the node', error);
  }
  waitPast(clock, markMs + layout.unitMs, node);
  return claimOf(db, address, markMs);
}

/**
 * Sleeps until `clock` is past `markMs` (the last holder's mark plus a tick, so that the tick
 * the clock is in starts after the mark), or throws `BehindMarkError` if that is too far.
 */
function waitPast(clock: Clock, markMs: number, node: number): void {
  for (let now = clock.now(); now <= markMs; now = clock.now()) {
    if (markMs - now > MARK_TOLERANCE_MS) {
      throw new BehindMarkError(node, markMs, now, MARK_TOLERANCE_MS);
    }
    clock.sleep(markMs - now + 1);
  }
}

function claimOf(db: Database.Database, address: string, startMs: number): NodeClaim {
  const write = db.prepare('UPDATE idforge_node_mark SET mark_ms = ?');
  let markMs = startMs;
  return {
    admit(tickStartMs: number): void {
      if (tickStartMs <= markMs) return;
      try {
        write.run(tickStartMs + MARK_AHEAD_MS);
      } catch (error) {
        throw storeError(sqliteSite(address), 'write the node mark', error);
      }
      markMs = tickStartMs + MARK_AHEAD_MS;
    },
  };
}
