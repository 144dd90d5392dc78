/**
 * The one rule for the tag a sequence is named by, checked the same way by the CLI, every
 * store and the service: 1 to {@link MAX_TAG_LENGTH} characters of well-formed Unicode with no
 * control character (PostgreSQL refuses NUL, and a tag must print on one line). Spaces are
 * characters like any other, leading and trailing ones included: `'padA'` and `'padA '` are
 * two tags on every backend (SQLite and PostgreSQL compare bytes, MySQL/MariaDB tags are
 * VARBINARY), and nothing trims a tag on the way. Tags are case-sensitive everywhere.
 *
 * Ticket servers and planned writers add their own restriction on top, {@link assertTicketTag}:
 * the tag becomes a table or sequence name.
 */
import { rangeError, typeError } from '../core/internal.js';
import { MAX_TAG_LENGTH } from '../wire/index.js';

// The longest tag: part of the wire contract (core/wire.ts), the columns are 128 wide.
export { MAX_TAG_LENGTH } from '../wire/index.js';

/** Control characters (C0, DEL, C1) and halves of surrogate pairs (not valid UTF-8). */
const CONTROL_OR_LONE_SURROGATE = /[\p{Cc}\p{Cs}]/u;

/**
 * Returns `tag` when it is a valid tag; throws `TypeError` for a non-string and `RangeError`
 * ("expected 1 to 128 printable characters, got ...") otherwise.
 */
export function assertTag(tag: string): string {
  if (typeof tag !== 'string') throw typeError('tag', 'a string', tag);
  if (tag.length === 0 || tag.length > MAX_TAG_LENGTH || CONTROL_OR_LONE_SURROGATE.test(tag)) {
    throw rangeError('tag', `1 to ${MAX_TAG_LENGTH} printable characters`, tag);
  }
  return tag;
}

/** Lower case, so that a table name means the same whatever `lower_case_table_names` says. */
const TICKET_TAG = /^[a-z][a-z0-9_]{0,47}$/;

/**
 * A tag that also names a table or sequence (`tickets_<tag>`): `[a-z][a-z0-9_]*`, at most 48
 * characters, so that the name fits MySQL's 64- and PostgreSQL's 63-character identifiers.
 * Returns it; throws like {@link assertTag}, and `RangeError` otherwise.
 */
export function assertTicketTag(tag: string): string {
  assertTag(tag);
  if (!TICKET_TAG.test(tag)) {
    throw rangeError(
      'ticket tag',
      '[a-z][a-z0-9_]* of at most 48 characters (it names a table)',
      tag,
    );
  }
  return tag;
}
