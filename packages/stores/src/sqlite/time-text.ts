/**
 * Times written as text in SQLite, read one way wherever idforge reads them: the SQL functions
 * (`registerIdforgeFunctions`, in JavaScript) and the backfill's `--at-column` (in SQL).
 * SQLite has no time type; its date functions read ISO 8601 text
 * `YYYY-MM-DD[(T| )HH:MM[:SS[.fraction]]][ ][Z|±HH:MM]`, and text without a zone is UTC (as
 * SQLite's own `unixepoch()` reads it, never the host's TZ). A fraction finer than the
 * millisecond is floored to it, as PostgreSQL's and MariaDB's microseconds are (SQLite itself
 * rounds to the nearest ms, so `12:00:00.1239` would be read as .124); what is below the ms
 * is kept as a fraction of a ms, which the backdated values use to order rows within one ms.
 */

/** The ISO 8601 forms SQLite's date functions accept (the same groups, in order). */
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d*))?)?)? *(?:(Z)|([+-])(\d{2}):(\d{2}))? *$/;

/**
 * Unix ms of ISO 8601 text as SQLite reads it (no zone: UTC), the fraction below the ms
 * dropped; `undefined` for text in another form or with a field out of range.
 */
export function sqliteTextMs(text: string): number | undefined {
  const m = ISO.exec(text);
  if (m === null) return undefined;
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1, 7).map((x) => (x === undefined ? 0 : +x));
  if (mo! < 1 || mo! > 12 || d! < 1 || d! > 31 || h > 24 || mi > 59 || s > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(y!, mo! - 1, d!); // not Date.UTC: it maps years 0..99 to 1900..1999
  const ms = Number((m[7] ?? '').slice(0, 3).padEnd(3, '0'));
  const offset = m[9] === undefined ? 0 : (m[9] === '-' ? -1 : 1) * (+m[10]! * 60 + +m[11]!);
  return date.getTime() + ((h * 60 + mi - offset) * 60 + s) * 1000 + ms;
}

/**
 * SQL of the unix ms of the text in column `c` (an expression), read as {@link sqliteTextMs}
 * reads it but with the digits below the ms kept as a fraction, NULL when it holds no
 * date-time text. The fraction's digits past the third are cut before SQLite parses the text
 * (it would round them into the ms) and added back as a fraction.
 */
export function sqliteTextMsSql(c: string): string {
  const dot = `instr(${c}, '.')`;
  const rest = `ltrim(substr(${c}, ${dot} + 1), '0123456789')`;
  const digits = `(length(${c}) - ${dot} - length(${rest}))`;
  const fraction = `instr(${c}, ':') > 0 AND ${dot} > instr(${c}, ':')`;
  const cut = `substr(${c}, 1, ${dot} + min(${digits}, 3)) || ${rest}`;
  const text = `CASE WHEN ${fraction} THEN ${cut} ELSE ${c} END`;
  const below = `CASE WHEN ${fraction} AND ${digits} > 3 THEN CAST('0.' || substr(${c}, ${dot} + 4, ${digits} - 3) AS REAL) ELSE 0 END`;
  // unixepoch(..., 'subsec') holds whole ms (SQLite keeps ms internally); round() undoes the
  // binary fraction of `seconds * 1000`, which could read 122.99999 for .123.
  // Text that starts with no date (a time of day, a Julian day number, 'now') is no point in
  // time here, though SQLite's functions read it: refused alike in JavaScript.
  const dated = `typeof(${c}) = 'text' AND ${c} GLOB '[0-9][0-9][0-9][0-9]-*'`;
  return `CASE WHEN ${dated} THEN round(unixepoch(${text}, 'subsec') * 1000.0) + ${below} END`;
}
