/**
 * The MariaDB (10.10+: RANDOM_BYTES since 10.10) text of idforge's
 * functions, generated from a layout's figures (layout-sql.ts); what each does is in
 * script.ts. Not MySQL (no Aria, no RANDOM_BYTES in functions the same way): not served.
 *
 * The Snowflake counter is one row of an Aria table (SETVAL takes literals only, so a
 * sequence cannot be moved to the clock from a function): `UPDATE … SET v =
 * LAST_INSERT_ID(GREATEST(v + 1, clockTick × 2^seqBits))`, atomic under the table's lock,
 * which MariaDB holds for the calling statement only (Aria is not transactional): every value
 * is taken once, and concurrent statements calling the function take turns. MariaDB has no time-zone-aware type: the
 * functions take and return UTC DATETIME(6)/(3) values; the clock is UNIX_TIMESTAMP(SYSDATE(6))
 * (SYSDATE, not NOW(): NOW() is fixed for a statement). Stored functions may not be column
 * DEFAULTs in MariaDB: call them in the INSERT (or a BEFORE INSERT trigger).
 */
import { INT64_MAX } from '../core/internal.js';
import {
  type LayoutSql,
  layoutKey,
  UUIDV7_MAX_MS as MAX_MS,
  nodeBitsSql,
  type SqlFunction,
  sqlString,
} from './layout-sql.js';

/** The table of the Snowflake counter (one row). */
export const MARIADB_COUNTER = 'idforge_snowflake_counter';

/**
 * The database a node is chosen for, as SQL: its name and the server's `server_id` (MariaDB
 * has no server UUID a function can read cheaply). Recorded in the counter's row when a node
 * is applied; idforge_snowflake() refuses where it reads otherwise, which is a copy: a dump
 * restored under another name or on a server of another id (every replica has its own), so
 * two databases never mint with one node unawares. Inside a stored function DATABASE() is the
 * function's own database, whatever the caller's current one.
 */
export const MARIADB_DATABASE_IDENTITY = "CONCAT(DATABASE(), '@', @@server_id)";

/**
 * The tables and the counter, each created only when missing. The counter's row also holds
 * the layout and the node it counts for (`layout_key`, `node`) and the database the node was
 * chosen for (`home`), so that an install switches them in one UPDATE (mariadbSwitch) and a
 * call reads them together; v1 kept the node in idforge_settings and had none of these
 * columns: the ALTER adds them (v1's functions, which read only `v`, keep working meanwhile)
 * and the layout is taken from v1's version row, so that the switch resets the counter only
 * when the layout really changes.
 */
export function mariadbSetup(): string[] {
  return [
    'CREATE TABLE IF NOT EXISTS idforge_sql_version (name VARCHAR(32) PRIMARY KEY, version INT NOT NULL, ' +
      'layout VARCHAR(128) NOT NULL, layout_key VARCHAR(512) NOT NULL, ' +
      'installed_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)) ENGINE=InnoDB',
    'CREATE TABLE IF NOT EXISTS idforge_settings (name VARCHAR(32) PRIMARY KEY, value VARCHAR(64) NOT NULL) ENGINE=InnoDB',
    // Aria, non-transactional but crash-safe: the UPDATE's lock ends with its statement, not
    // with the caller's transaction, and a ROLLBACK never moves the counter back.
    `CREATE TABLE IF NOT EXISTS ${MARIADB_COUNTER} (id TINYINT PRIMARY KEY, v BIGINT NOT NULL, ` +
      'layout_key VARCHAR(512) NULL, node BIGINT NULL, home VARCHAR(255) NULL) ENGINE=Aria TRANSACTIONAL=1',
    `ALTER TABLE ${MARIADB_COUNTER} ADD COLUMN IF NOT EXISTS layout_key VARCHAR(512) NULL, ` +
      'ADD COLUMN IF NOT EXISTS node BIGINT NULL, ADD COLUMN IF NOT EXISTS home VARCHAR(255) NULL',
    `INSERT IGNORE INTO ${MARIADB_COUNTER} (id, v) VALUES (1, 0)`,
    `UPDATE ${MARIADB_COUNTER} SET layout_key = (SELECT layout_key FROM idforge_sql_version ` +
      "WHERE name = 'functions') WHERE id = 1 AND layout_key IS NULL",
  ];
}

/**
 * The install's switch to layout `key` and `node` (undefined: keep the node, or v1's from
 * idforge_settings): ONE statement on the counter's row, so every call of idforge_snowflake()
 * sees the old state or the new, never a mix. The counter restarts from 0 (then from the
 * clock) only when the layout changes; `v` is assigned first, while `layout_key` still holds
 * the old layout (MariaDB assigns left to right). A node given is chosen for this database
 * (`home`); without one the home stays, so a copy keeps refusing until it gets a node, and
 * only a row that has none yet (a first install, v1) takes this database's. Then v1's node
 * setting goes: the row is the one place the node lives.
 */
export function mariadbSwitch(key: string, node: number | undefined): string[] {
  const n =
    node === undefined
      ? "COALESCE(node, (SELECT CAST(value AS SIGNED) FROM idforge_settings WHERE name = 'node'))"
      : String(node);
  const home =
    node === undefined ? `COALESCE(home, ${MARIADB_DATABASE_IDENTITY})` : MARIADB_DATABASE_IDENTITY;
  return [
    `UPDATE ${MARIADB_COUNTER} SET v = IF(layout_key <=> ${sqlString(key)}, v, 0), ` +
      `node = ${n}, home = ${home}, layout_key = ${sqlString(key)} WHERE id = 1`,
    "DELETE FROM idforge_settings WHERE name = 'node'",
  ];
}

function fn(name: string, sql: string): SqlFunction {
  return { name, args: '', sql };
}

const raise = (message: string, state: string) =>
  `SIGNAL SQLSTATE '${state}' SET MESSAGE_TEXT = '${message}'`;

/**
 * The first lines of a body that takes a time `ts` into `ms`, checked against [low, high]:
 * NULL is an error (22004, as PostgreSQL's functions) rather than a NULL answer, and a zero
 * date (what MariaDB makes of a text it cannot read outside strict mode, where strict mode
 * refuses the text itself with 22007) or a time out of range is 22008.
 */
function timeArg(fname: string, low: number, high: number, range: string): string {
  return `IF ts IS NULL THEN
    ${raise(`${fname}: the time is NULL`, '22004')};
  END IF;
  SET ms = idforge_ms(ts);
  IF ms IS NULL OR ms < ${low} OR ms > ${high} THEN
    ${raise(`${fname}: the time is outside ${range} (or a zero date, which is no time)`, '22008')};
  END IF;`;
}

function helperFunctions(): SqlFunction[] {
  return [
    fn(
      'idforge_now_ms',
      `CREATE OR REPLACE FUNCTION idforge_now_ms() RETURNS BIGINT NOT DETERMINISTIC NO SQL
RETURN COALESCE(@idforge_now_ms, FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000))`,
    ),
    fn(
      'idforge_ms',
      `CREATE OR REPLACE FUNCTION idforge_ms(ts DATETIME(6)) RETURNS BIGINT DETERMINISTIC NO SQL
RETURN FLOOR(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP '1970-01-01 00:00:00', ts) / 1000)`,
    ),
    fn(
      'idforge_ms_time',
      `CREATE OR REPLACE FUNCTION idforge_ms_time(ms BIGINT) RETURNS DATETIME(3) DETERMINISTIC NO SQL
RETURN TIMESTAMPADD(MICROSECOND, ms * 1000, TIMESTAMP '1970-01-01 00:00:00')`,
    ),
    fn(
      'idforge_uuid_text',
      `CREATE OR REPLACE FUNCTION idforge_uuid_text(h CHAR(32)) RETURNS CHAR(36) CHARACTER SET ascii DETERMINISTIC NO SQL
RETURN LOWER(CONCAT_WS('-', SUBSTR(h, 1, 8), SUBSTR(h, 9, 4), SUBSTR(h, 13, 4), SUBSTR(h, 17, 4), SUBSTR(h, 21, 12)))`,
    ),
  ];
}

/** 62 random bits under the variant bits 10, as 16 hex digits. */
const RAND_B =
  "LPAD(HEX((CONV(HEX(RANDOM_BYTES(8)), 16, 10) & 0x3FFFFFFFFFFFFFFF) | 0x8000000000000000), 16, '0')";

function uuidv7Functions(): SqlFunction[] {
  return [
    fn(
      'idforge_uuidv7',
      `CREATE OR REPLACE FUNCTION idforge_uuidv7() RETURNS CHAR(36) CHARACTER SET ascii NOT DETERMINISTIC NO SQL
BEGIN
  DECLARE ms BIGINT DEFAULT idforge_now_ms();
  DECLARE ctr INT;
  IF @idforge_v7_ms IS NULL OR ms > @idforge_v7_ms THEN
    SET ctr = CONV(HEX(RANDOM_BYTES(2)), 16, 10) & 2047;
  ELSE
    SET ms = @idforge_v7_ms, ctr = @idforge_v7_ctr + 1;
    IF ctr > 4095 THEN
      SET ms = ms + 1, ctr = 0;
    END IF;
  END IF;
  IF ms < 0 OR ms > ${MAX_MS} THEN
    ${raise("idforge_uuidv7: the time is outside UUIDv7''s range", '22008')};
  END IF;
  SET @idforge_v7_ms = ms, @idforge_v7_ctr = ctr;
  RETURN idforge_uuid_text(CONCAT(LPAD(HEX(ms), 12, '0'), '7', LPAD(HEX(ctr), 3, '0'), ${RAND_B}));
END`,
    ),
    fn(
      'idforge_uuidv7_at',
      `CREATE OR REPLACE FUNCTION idforge_uuidv7_at(ts DATETIME(6)) RETURNS CHAR(36) CHARACTER SET ascii NOT DETERMINISTIC NO SQL
BEGIN
  DECLARE ms BIGINT;
  ${timeArg('idforge_uuidv7_at', 0, MAX_MS, "UUIDv7''s range")}
  RETURN idforge_uuid_text(CONCAT(LPAD(HEX(ms), 12, '0'), '7', SUBSTR(HEX(RANDOM_BYTES(2)), 2, 3), ${RAND_B}));
END`,
    ),
  ];
}

/**
 * What a call says when the row is not of its layout: an install is switching layouts.
 * SQLSTATE 40001 (serialization failure, as PostgreSQL's crossing call): nothing was taken,
 * and drivers and ORMs that retry a deadlock retry it.
 */
const SWITCHING =
  'idforge_snowflake: the functions are being re-installed for another layout: retry when idforge sql --apply has finished (apply again if it stopped)';

/**
 * The refusal of a copy, naming the node, the database it was chosen for and this one
 * (SIGNAL takes a variable's text, not an expression: x_msg).
 */
function copyRefusal(node: string, home: string, here: string): string {
  return `SET x_msg = CONCAT('idforge_snowflake: node ', ${node}, ' was set for database ', COALESCE(${home}, '?'), ', not this one (', ${here}, '): a copy minting with it would repeat its IDs; choose a node for this database: idforge sql --store URL --apply --node N');
    SIGNAL SQLSTATE '55000' SET MESSAGE_TEXT = x_msg`;
}

/**
 * `idforge_snowflake()`. The layout and the node are read from the counter's row and the
 * UPDATE takes its value only while the row still holds them: a call compiled for one layout
 * never moves a counter of another (the layout switch resets it in the same statement that
 * changes the layout), and an ID's node is the one of the state its value came from. A call
 * between an install's new function and its switch refuses (SQLSTATE 40001) instead.
 */
function snowflakeFunction(l: LayoutSql): SqlFunction {
  const gene = l.geneBits === 0 ? '' : ` | FLOOR(RAND() * ${2 ** l.geneBits})`;
  const key = sqlString(layoutKey(l.layout));
  return fn(
    'idforge_snowflake',
    `CREATE OR REPLACE FUNCTION idforge_snowflake() RETURNS BIGINT NOT DETERMINISTIC MODIFIES SQL DATA
BEGIN
  DECLARE x_layout VARCHAR(512);
  DECLARE x_node BIGINT;
  DECLARE x_home VARCHAR(255);
  DECLARE x_here VARCHAR(255);
  DECLARE x_msg VARCHAR(512);
  DECLARE x_ms BIGINT DEFAULT idforge_now_ms();
  DECLARE x_c BIGINT;
  DECLARE x_v BIGINT;
  DECLARE x_t BIGINT;
  DECLARE x_id BIGINT UNSIGNED;
  -- No row leaves both NULL (the refusal below) rather than a 'No data' condition.
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET x_layout = NULL;
  SELECT layout_key, node, home INTO x_layout, x_node, x_home FROM ${MARIADB_COUNTER} WHERE id = 1;
  IF x_layout IS NULL OR x_layout <> ${key} THEN
    ${raise(SWITCHING, '40001')};
  END IF;
  IF x_node IS NULL THEN
    ${raise('idforge_snowflake: no node is set: run idforge sql --store URL --apply --node N', '55000')};
  END IF;
  SET x_here = ${MARIADB_DATABASE_IDENTITY};
  IF NOT x_home <=> x_here THEN
    ${copyRefusal('x_node', 'x_home', 'x_here')};
  END IF;
  IF x_ms < ${l.epochMs} THEN
    ${raise('idforge_snowflake: the clock is before the epoch of the layout', '22008')};
  END IF;
  SET x_c = ((x_ms - ${l.epochMs}) DIV ${l.unitMs}) << ${l.seqBits};
  UPDATE ${MARIADB_COUNTER} SET v = LAST_INSERT_ID(GREATEST(v + 1, x_c))
    WHERE id = 1 AND layout_key = ${key} AND node = x_node;
  IF ROW_COUNT() <> 1 THEN
    ${raise(SWITCHING, '40001')};
  END IF;
  SET x_v = LAST_INSERT_ID();
  SET x_t = x_v >> ${l.seqBits};
  IF x_t > ${l.timeMask} THEN
    ${raise('idforge_snowflake: the time is past the horizon of the layout', '22008')};
  END IF;
  SET x_id = (x_t << ${l.timeShift}) | ${nodeBitsSql(l, 'x_node')} | ((x_v & ${l.seqMask}) << ${l.seqShift})${gene};
  IF x_id > ${INT64_MAX} THEN
    ${raise('idforge_snowflake: the ID passes the signed 64-bit range of BIGINT', '22003')};
  END IF;
  RETURN x_id;
END`,
  );
}

/**
 * The UUID half of idforge_time: the library's spellings only (inspect: 36 characters with
 * hyphens, 32 hex digits, either in {…}, or after urn:uuid:), and a time only for version 7 of
 * RFC 9562's variant (inspect gives a v7 of another variant none).
 */
const UUID_TIME = `SET h = CASE WHEN LOWER(LEFT(id, 9)) = 'urn:uuid:' THEN SUBSTR(id, 10)
    WHEN LEFT(id, 1) = '{' AND RIGHT(id, 1) = '}' THEN SUBSTR(id, 2, CHAR_LENGTH(id) - 2) ELSE id END;
  IF h REGEXP '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$' THEN
    SET h = REPLACE(h, '-', '');
  ELSEIF NOT h REGEXP '^[0-9A-Fa-f]{32}$' THEN
    ${raise('idforge_time: expected a Snowflake (decimal), a ULID or a UUID (36 characters with hyphens or 32 hex digits, bare, in braces or after urn:uuid:)', '22023')};
  END IF;
  IF SUBSTR(h, 13, 1) <> '7' OR SUBSTR(h, 17, 1) NOT IN ('8', '9', 'a', 'b', 'A', 'B') THEN
    ${raise('idforge_time: the UUID is not a UUIDv7 (version 7, variant RFC 9562)', '22023')};
  END IF;
  RETURN idforge_ms_time(CONV(SUBSTR(h, 1, 12), 16, 10));`;

/**
 * `idforge_time(id)`, told apart as inspect does: 1 to 20 digits a Snowflake of the layout
 * (no leading zero, at most its largest ID and BIGINT's), 26 characters a ULID, else a UUID.
 */
function timeFunction(l: LayoutSql): SqlFunction {
  const max = l.layout.maxId < BigInt(INT64_MAX) ? l.layout.maxId : BigInt(INT64_MAX);
  return fn(
    'idforge_time',
    `CREATE OR REPLACE FUNCTION idforge_time(id VARCHAR(64)) RETURNS DATETIME(3) DETERMINISTIC NO SQL
BEGIN
  DECLARE h VARCHAR(64);
  DECLARE ms BIGINT DEFAULT 0;
  DECLARE d INT;
  DECLARE i INT DEFAULT 1;
  IF id REGEXP '^[0-9]{1,20}$' THEN
    IF id REGEXP '^0[0-9]' THEN
      ${raise('idforge_time: a Snowflake is written without leading zeros', '22023')};
    END IF;
    IF CAST(id AS DECIMAL(20, 0)) > ${max} THEN
      ${raise(`idforge_time: the Snowflake is above ${max}, the largest ID of the layout that a signed BIGINT holds`, '22003')};
    END IF;
    RETURN idforge_ms_time(${l.epochMs} + ((CAST(id AS UNSIGNED) >> ${l.timeShift}) & ${l.timeMask}) * ${l.unitMs});
  ELSEIF CHAR_LENGTH(id) = 26 THEN
    WHILE i <= 26 DO
      SET d = LOCATE(UPPER(SUBSTR(id, i, 1)), '0123456789ABCDEFGHJKMNPQRSTVWXYZ') - 1;
      IF d < 0 OR (i = 1 AND d > 7) THEN
        ${raise('idforge_time: not a ULID', '22023')};
      END IF;
      IF i <= 10 THEN
        SET ms = ms * 32 + d;
      END IF;
      SET i = i + 1;
    END WHILE;
    RETURN idforge_ms_time(ms);
  END IF;
  ${UUID_TIME}
END`,
  );
}

function uuidBoundFunctions(): SqlFunction[] {
  const bound = (name: string, tail: string) =>
    fn(
      name,
      `CREATE OR REPLACE FUNCTION ${name}(ts DATETIME(6)) RETURNS CHAR(36) CHARACTER SET ascii DETERMINISTIC NO SQL
BEGIN
  DECLARE ms BIGINT;
  ${timeArg(name, 0, MAX_MS, "UUIDv7''s range")}
  RETURN idforge_uuid_text(CONCAT(LPAD(HEX(ms), 12, '0'), '${tail}'));
END`,
    );
  return [
    bound('idforge_uuidv7_lowest', '70008000000000000000'),
    bound('idforge_uuidv7_highest', '7fffbfffffffffffffff'),
    boundsFunction('idforge_uuidv7', (x) => x),
  ];
}

/**
 * `…_bounds(from, to)`: MariaDB functions return one value, so a JSON object of the two. A
 * NULL `to` is `from` (PostgreSQL's one-argument form; MariaDB has no default arguments), a
 * NULL `from` an error; a zero date is refused before the order is checked, since it sorts
 * first.
 */
function boundsFunction(prefix: string, quote: (x: string) => string): SqlFunction {
  return fn(
    `${prefix}_bounds`,
    `CREATE OR REPLACE FUNCTION ${prefix}_bounds(from_ts DATETIME(6), to_ts DATETIME(6)) RETURNS LONGTEXT DETERMINISTIC NO SQL
BEGIN
  IF from_ts IS NULL THEN
    ${raise(`${prefix}_bounds: from is NULL`, '22004')};
  END IF;
  IF idforge_ms(from_ts) IS NULL OR idforge_ms(COALESCE(to_ts, from_ts)) IS NULL THEN
    ${raise(`${prefix}_bounds: a zero date is no time`, '22008')};
  END IF;
  IF to_ts < from_ts THEN
    ${raise(`${prefix}_bounds: to is before from`, '22023')};
  END IF;
  RETURN JSON_OBJECT('lowest', ${quote(`${prefix}_lowest(from_ts)`)}, 'highest', ${quote(`${prefix}_highest(COALESCE(to_ts, from_ts))`)});
END`,
  );
}

function snowflakeBoundFunctions(l: LayoutSql): SqlFunction[] {
  const low = (1n << BigInt(l.timeShift)) - 1n;
  const bound = (name: string, rest: string) =>
    fn(
      name,
      `CREATE OR REPLACE FUNCTION ${name}(ts DATETIME(6)) RETURNS BIGINT DETERMINISTIC NO SQL
BEGIN
  DECLARE ms BIGINT;
  DECLARE id BIGINT UNSIGNED;
  IF ${l.sortable ? 'FALSE' : 'TRUE'} THEN
    ${raise(`${name}: the time is not the top field of the layout: its IDs do not sort by time`, '0A000')};
  END IF;
  ${timeArg(name, l.epochMs, l.lastMs, 'the time range of the layout')}
  SET id = (((ms - ${l.epochMs}) DIV ${l.unitMs}) << ${l.timeShift})${rest};
  IF id > ${INT64_MAX} THEN
    ${raise(`${name}: the bound passes the signed 64-bit range of BIGINT`, '22003')};
  END IF;
  RETURN id;
END`,
    );
  return [
    bound('idforge_snowflake_lowest', ''),
    bound('idforge_snowflake_highest', ` | ${low}`),
    boundsFunction('idforge_snowflake', (x) => `CAST(${x} AS CHAR)`),
  ];
}

/** Every function of the layout, in creation order (each after what it calls). */
export function mariadbFunctions(l: LayoutSql): SqlFunction[] {
  return [
    ...helperFunctions(),
    ...uuidv7Functions(),
    snowflakeFunction(l),
    timeFunction(l),
    ...uuidBoundFunctions(),
    ...snowflakeBoundFunctions(l),
  ];
}
