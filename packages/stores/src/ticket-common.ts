/**
 * What the ticket servers (mysql/ for MariaDB or MySQL, postgres/) share: the checks of a
 * sequence tag and of a server's increment and offset, and where a re-planned series starts.
 * Misuse throws `RangeError` ("expected X, got Y"). No driver is imported here.
 */
import { assertTicketTag, RunningDeadline, UnknownTagError } from 'idforge/sequences';
import { type CallSite, storeError } from './store-error.js';

/** The largest increment: MySQL's and MariaDB's `auto_increment_increment` maximum. */
export const MAX_TICKET_INCREMENT = 65_535;

/**
 * Checks a ticket sequence's tag: a tag (sequences/tag.ts) that is also `[a-z][a-z0-9_]*`, at most 48 characters, so that `tickets_<tag>`
 * fits both MySQL's 64- and PostgreSQL's 63-character identifiers. Returns the table (or
 * sequence) name `tickets_<name>`.
 */
export function ticketTable(name: string): string {
  return `tickets_${assertTicketTag(name)}`;
}

/**
 * `[<prefix>_]tickets_<name>` (no prefix when `prefix` is ''). Throws `RangeError` for a bad
 * name, or when the whole passes the backend's `maxLength` (MySQL 64).
 */
export function prefixedTicketTable(prefix: string, name: string, maxLength: number): string {
  const table = `${prefix === '' ? '' : `${prefix}_`}${ticketTable(name)}`;
  if (table.length > maxLength) {
    throw new RangeError(
      `ticket sequence name: expected namespace and name to make a table name of at most ` +
        `${maxLength} characters, got "${table}" (${table.length})`,
    );
  }
  return table;
}

/**
 * Checks one server's share of a sequence: `increment` an integer in [1, 65535] (the number of
 * servers, or more to leave room for servers added later) and `offset` in [1, increment]
 * (MySQL ignores an offset above the increment, which would break the split).
 */
export function assertTicketPlan(increment: number, offset: number): void {
  if (!Number.isInteger(increment) || increment < 1 || increment > MAX_TICKET_INCREMENT) {
    throw new RangeError(`increment: expected an integer in [1, 65535], got ${increment}`);
  }
  if (!Number.isInteger(offset) || offset < 1 || offset > increment) {
    throw new RangeError(
      `offset: expected an integer in [1, increment = ${increment}], got ${offset}`,
    );
  }
}

/**
 * The smallest ticket of the series offset, offset + increment, ... that is greater than
 * `floor`. Used when a sequence is created or re-planned while other servers have already
 * issued tickets up to `floor`.
 */
export function firstTicketAbove(floor: bigint, increment: number, offset: number): bigint {
  const inc = BigInt(increment);
  const off = BigInt(offset);
  if (floor < off) return off;
  return off + ((floor - off) / inc + 1n) * inc;
}

/** Describes the stored settings, as written in a MariaDB table comment. */
export function ticketComment(increment: number, offset: number): string {
  return `idforge tickets: increment=${increment} offset=${offset}`;
}

/** Reads {@link ticketComment} back; null for any other comment (a table idforge did not set up). */
export function parseTicketComment(comment: string): { increment: number; offset: number } | null {
  const m = /^idforge tickets: increment=(\d+) offset=(\d+)$/.exec(comment);
  return m === null ? null : { increment: Number(m[1]), offset: Number(m[2]) };
}

/**
 * The error a ticket server rejects with when a sequence was never set up on it (or its table
 * was dropped): `UnknownTagError` naming the server and `idforge ticket setup`.
 */
export function notSetUp(
  where: { readonly backend: string; readonly address: string },
  name: string,
  cause: unknown,
): UnknownTagError {
  return new UnknownTagError(name, where.backend, where.address, cause);
}

/**
 * Runs `fn`, giving up after `ms`: a failure (or the deadline) rejects with the typed store
 * error of store-error.ts (`StoreUnavailableError`, `StoreAuthError`, ...); `RangeError`s and
 * typed idforge errors raised by `fn` itself pass through. A call given up on may still finish on
 * the server; for a ticket that is a gap, never a duplicate (nobody receives it).
 */
export async function withDeadline<T>(
  where: CallSite,
  operation: string,
  ms: number,
  fn: () => Promise<T>,
): Promise<T> {
  const pending = (async () => fn())();
  pending.catch(() => undefined);
  try {
    if (!(await settlesWithin(pending, ms))) throw new Error(`no answer within ${ms} ms`);
    return await pending;
  } catch (e) {
    if (e instanceof RangeError) throw e;
    throw storeError(where, operation, e);
  }
}

/**
 * Resolves true when `p` settles within `ms` of this process's running time, false otherwise
 * (never rejects): a pause of the process (SIGSTOP, a frozen VM) is not counted against the
 * server, whose answer may be waiting in the socket (RunningDeadline).
 */
export function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  return new RunningDeadline(ms).race(p);
}
