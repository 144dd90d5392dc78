/**
 * The salted-shard-key demonstration on PostgreSQL declarative range partitioning (a stand-in
 * for any range-partitioned store: HBase regions, Bigtable tablets, CockroachDB ranges). In a
 * schema of its own, two tables of P partitions each receive the same stream of time-ordered
 * Snowflake IDs (layout `default`, minted by idforge's generator on a manual clock):
 *
 *   unsalted  PRIMARY KEY (id), PARTITION BY RANGE (id). The key space is split where a range-
 *             sharded store would have split it by the data it already holds: P ranges over
 *             the last `historyMs` of IDs before the stream starts, the first from MINVALUE,
 *             the last up to MAXVALUE, so "now" lies in the last partition.
 *   salted    PRIMARY KEY (bucket, id), PARTITION BY RANGE (bucket, id), bucket = shardKey(id)
 *             over B buckets; partition k holds buckets [floor(k·B/P), floor((k+1)·B/P)).
 *
 * Per-partition insert counts come from the server's statistics (pg_stat_user_tables.n_tup_ins,
 * flushed with pg_stat_force_next_flush() on PostgreSQL 15+, else waited for until they add up
 * to the rows inserted). The cost of reading one time range is EXPLAIN (ANALYZE, BUFFERS,
 * FORMAT JSON) of a count over the IDs minted in a window in the middle of the stream: on the
 * unsalted table one range (`id BETWEEN from AND to`), on the salted one a UNION ALL of the
 * ranges of bucketRanges(from, to) (`bucket = b AND id BETWEEN from AND to`, one per bucket).
 *
 * Uses one connection for everything (the statistics a backend has not flushed are not yet
 * visible), given by the caller, who also owns its lifetime.
 */
import {
  compose,
  getLayout,
  ManualClock,
  SnowflakeGenerator,
} from '../../packages/idforge/src/core/index.js';
import { bucketRanges, shardKey } from '../../packages/idforge/src/shard/index.js';

/** What the demo needs of a connection: pg.Client fits. */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

export interface PartitionDemoOptions {
  /** Rows inserted into each table. */
  readonly rows: number;
  /** Salt buckets (at least `partitions`). */
  readonly buckets: number;
  /** Partitions of each table. */
  readonly partitions: number;
  /** The schema created (dropped first if it exists) for the two tables. */
  readonly schema: string;
  /** Rows per INSERT. Default 10,000. */
  readonly batch?: number;
  /** IDs minted per simulated millisecond. Default 200. */
  readonly perMs?: number;
  /** History before the stream over which the unsalted key space was split. Default 8 days. */
  readonly historyMs?: number;
  /** Share of the stream's time span read as one time range. Default 0.01. */
  readonly readShare?: number;
  /** Called after each batch with the rows inserted so far into the current table. */
  readonly onProgress?: (table: string, done: number) => void;
}

export interface PartitionCount {
  readonly name: string;
  /** The partition bound as PostgreSQL prints it. */
  readonly bound: string;
  readonly inserts: number;
}

export interface RangeRead {
  /** Rows the time-range query counted. */
  readonly rows: number;
  /** Index scan nodes in the plan (Index Scan, Index Only Scan, Bitmap Index Scan). */
  readonly indexScans: number;
  /** Distinct partitions those scans touched. */
  readonly partitionsScanned: number;
  /** Shared buffers hit and read by the whole plan. */
  readonly sharedHit: number;
  readonly sharedRead: number;
  readonly executionMs: number;
  readonly sql: string;
}

export interface TableResult {
  readonly table: string;
  readonly partitions: readonly PartitionCount[];
  /** The busiest partition's inserts over the mean: P when one partition takes every write. */
  readonly maxOverMean: number;
  readonly read: RangeRead;
}

export interface PartitionDemoResult {
  readonly server: string;
  readonly rows: number;
  readonly buckets: number;
  readonly partitions: number;
  /** The time range read: the smallest and largest ID of its milliseconds. */
  readonly readFrom: string;
  readonly readTo: string;
  /**
   * Times the statistics were read again before they added up (0 on PostgreSQL 15+, where
   * pg_stat_force_next_flush() makes them exact at the first read).
   */
  readonly statsPolls: number;
  readonly unsalted: TableResult;
  readonly salted: TableResult;
}

const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;
const pname = (table: string, k: number) => `${table}_p${String(k).padStart(3, '0')}`;

/** Runs the demonstration; leaves the schema in place (see {@link dropDemo}). */
export async function runPartitionDemo(
  db: Queryable,
  options: PartitionDemoOptions,
): Promise<PartitionDemoResult> {
  const { rows, buckets, partitions: P, schema } = options;
  if (!(Number.isInteger(P) && P >= 1 && Number.isInteger(buckets) && buckets >= P)) {
    throw new RangeError(`expected 1 <= partitions <= buckets, got ${P} and ${buckets}`);
  }
  if (!(Number.isInteger(rows) && rows >= 1))
    throw new RangeError(`expected rows >= 1, got ${rows}`);
  const batch = options.batch ?? 10_000;
  const perMs = options.perMs ?? 200;
  const historyMs = options.historyMs ?? 8 * 86_400_000;
  const s = ident(schema);
  const layout = getLayout('default');
  const version = String((await db.query('SHOW server_version_num')).rows[0]!.server_version_num);

  // The stream: `perMs` IDs a millisecond from node 1, starting now.
  const startMs = Date.now();
  const clock = new ManualClock(startMs);
  const gen = new SnowflakeGenerator({ node: 1, clock });
  const ids: bigint[] = new Array(rows);
  for (let i = 0; i < rows; i++) {
    if (i > 0 && i % perMs === 0) clock.advance(1);
    ids[i] = gen.next();
  }
  const endMs = clock.now();
  const idAt = (unixMs: number, low: boolean) =>
    compose(layout, {
      unixMs,
      fields: low ? { node: 0, sequence: 0 } : { node: 1023, sequence: 4095 },
    });

  await db.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await db.query(`CREATE SCHEMA ${s}`);
  // Unsalted: split points at the history's P-1 inner boundaries; the stream starts after them.
  await db.query(`CREATE TABLE ${s}.unsalted (id bigint PRIMARY KEY) PARTITION BY RANGE (id)`);
  const splits = Array.from({ length: P - 1 }, (_, i) =>
    idAt(startMs - historyMs + Math.round(((i + 1) * historyMs) / P), true),
  );
  for (let k = 0; k < P; k++) {
    const lo = k === 0 ? 'MINVALUE' : String(splits[k - 1]);
    const hi = k === P - 1 ? 'MAXVALUE' : String(splits[k]);
    await db.query(
      `CREATE TABLE ${s}.${pname('unsalted', k)} PARTITION OF ${s}.unsalted FOR VALUES FROM (${lo}) TO (${hi})`,
    );
  }
  await db.query(
    `CREATE TABLE ${s}.salted (bucket integer NOT NULL, id bigint NOT NULL, PRIMARY KEY (bucket, id)) PARTITION BY RANGE (bucket, id)`,
  );
  for (let k = 0; k < P; k++) {
    const lo = Math.floor((k * buckets) / P);
    const hi = Math.floor(((k + 1) * buckets) / P);
    const to = k === P - 1 ? '(MAXVALUE, MAXVALUE)' : `(${hi}, MINVALUE)`;
    await db.query(
      `CREATE TABLE ${s}.${pname('salted', k)} PARTITION OF ${s}.salted FOR VALUES FROM (${lo}, MINVALUE) TO ${to}`,
    );
  }

  // The same stream, in mint order, into each table.
  for (let i = 0; i < rows; i += batch) {
    const chunk = ids.slice(i, i + batch).map(String);
    await db.query(`INSERT INTO ${s}.unsalted (id) SELECT unnest($1::bigint[])`, [chunk]);
    options.onProgress?.('unsalted', Math.min(rows, i + batch));
  }
  for (let i = 0; i < rows; i += batch) {
    const chunk = ids.slice(i, i + batch);
    const bs = chunk.map((id) => shardKey(id, { buckets }));
    await db.query(
      `INSERT INTO ${s}.salted (bucket, id) SELECT * FROM unnest($1::int[], $2::bigint[])`,
      [bs, chunk.map(String)],
    );
    options.onProgress?.('salted', Math.min(rows, i + batch));
  }

  const { counts, polls } = await insertCounts(db, schema, rows, Number(version));
  await db.query(`VACUUM (ANALYZE) ${s}.unsalted, ${s}.salted`);

  // One time range: the milliseconds of `readShare` of the stream's span, in its middle.
  const span = Math.max(1, endMs - startMs);
  const width = Math.max(1, Math.round(span * (options.readShare ?? 0.01)));
  const fromMs = startMs + Math.floor((span - width) / 2);
  const from = idAt(fromMs, true);
  const to = idAt(fromMs + width - 1, false);
  const unsaltedSql = `SELECT count(*) FROM ${s}.unsalted WHERE id BETWEEN ${from} AND ${to}`;
  const arms = bucketRanges(from, to, { buckets }).map(
    (r) =>
      `SELECT count(*) AS n FROM ${s}.salted WHERE bucket = ${r.bucket} AND id BETWEEN ${from} AND ${to}`,
  );
  const saltedSql = `SELECT sum(n) FROM (${arms.join(' UNION ALL ')}) AS per_bucket`;
  const table = (name: 'unsalted' | 'salted', read: RangeRead): TableResult => {
    const parts = counts[name]!;
    const mean = rows / P;
    return {
      table: name,
      partitions: parts,
      maxOverMean: Math.max(...parts.map((p) => p.inserts)) / mean,
      read,
    };
  };
  return {
    server: String((await db.query('SELECT version()')).rows[0]!.version),
    rows,
    buckets,
    partitions: P,
    readFrom: String(from),
    readTo: String(to),
    statsPolls: polls,
    unsalted: table('unsalted', await explainRead(db, unsaltedSql)),
    salted: table('salted', await explainRead(db, saltedSql)),
  };
}

/**
 * Inserts per partition of both tables from pg_stat_user_tables, once they add up to `rows`
 * per table: PostgreSQL 15+ flushes this backend's pending counts when told to (the flush
 * happens as the statement ends, so the read is the next statement); older servers send them
 * to the statistics collector, which is polled (pg_stat_clear_snapshot) for up to 10 s.
 */
async function insertCounts(
  db: Queryable,
  schema: string,
  rows: number,
  version: number,
): Promise<{ counts: Record<string, PartitionCount[]>; polls: number }> {
  if (version >= 150000) await db.query('SELECT pg_stat_force_next_flush()');
  const deadline = Date.now() + 10_000;
  for (let polls = 0; ; polls++) {
    const got = await db.query(
      `SELECT p.relname AS parent, c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound,
              coalesce(s.n_tup_ins, 0) AS inserts
         FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid
         JOIN pg_class p ON p.oid = i.inhparent
         JOIN pg_namespace n ON n.oid = p.relnamespace
         LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
        WHERE n.nspname = $1 AND p.relname IN ('unsalted', 'salted')
        ORDER BY c.relname`,
      [schema],
    );
    const out: Record<string, PartitionCount[]> = { unsalted: [], salted: [] };
    for (const r of got.rows) {
      out[String(r.parent)]!.push({
        name: String(r.name),
        bound: String(r.bound),
        inserts: Number(r.inserts),
      });
    }
    const total = (t: string) => out[t]!.reduce((a, p) => a + p.inserts, 0);
    if (total('unsalted') === rows && total('salted') === rows) return { counts: out, polls };
    if (Date.now() > deadline) {
      throw new Error(
        `pg_stat_user_tables counts ${total('unsalted')} and ${total('salted')} inserts, expected ${rows} each, after 10 s`,
      );
    }
    await db.query('SELECT pg_stat_clear_snapshot(), pg_sleep(0.1)');
  }
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

const INDEX_SCANS = new Set(['Index Scan', 'Index Only Scan', 'Bitmap Index Scan']);

/** EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) of `sql`, summarised; also runs it for the count. */
async function explainRead(db: Queryable, sql: string): Promise<RangeRead> {
  const res = await db.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`);
  const doc = res.rows[0]!['QUERY PLAN'] as [{ Plan: PlanNode; 'Execution Time': number }];
  const root = doc[0].Plan;
  let indexScans = 0;
  const relations = new Set<string>();
  const walk = (n: PlanNode) => {
    if (INDEX_SCANS.has(n['Node Type'])) indexScans++;
    if (n['Relation Name'] !== undefined) relations.add(n['Relation Name']);
    for (const c of n.Plans ?? []) walk(c);
  };
  walk(root);
  const count = await db.query(sql);
  return {
    rows: Number(Object.values(count.rows[0]!)[0]),
    indexScans,
    partitionsScanned: relations.size,
    sharedHit: root['Shared Hit Blocks'] ?? 0,
    sharedRead: root['Shared Read Blocks'] ?? 0,
    executionMs: doc[0]['Execution Time'],
    sql,
  };
}

/** Drops the demo's schema and everything in it. */
export async function dropDemo(db: Queryable, schema: string): Promise<void> {
  await db.query(`DROP SCHEMA IF EXISTS ${ident(schema)} CASCADE`);
}
