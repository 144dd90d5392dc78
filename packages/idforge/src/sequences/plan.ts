/**
 * The offset/increment planner: how N writers (MySQL/MariaDB servers, PostgreSQL sequences,
 * Flickr ticket servers) share one number space without talking to each other. Writer i
 * (1-based) issues i, i + increment, i + 2 * increment, ...; with increment >= N no two writers
 * ever issue the same number. Pure: builds text, runs nothing.
 */
import { dialectsOf, type PlanDialectName } from '../core/internal.js';
import { assertTicketTag } from './tag.js';

/** The dialects of the engines whose writers can be planned (core/engines.ts). */
export type PlanDialect = PlanDialectName;
export const PLAN_DIALECTS: readonly PlanDialect[] = dialectsOf('writerPlan');

/** Options of {@link planWriters}. */
export interface PlanOptions {
  /**
   * The tag the writers' numbers are for (a ticket tag: `[a-z][a-z0-9_]*`). PostgreSQL: the
   * sequence created (default `ids`). MySQL: when given, the plan also creates the ticket table
   * `tickets_<tag>` (InnoDB, as idforge's ticket servers).
   */
  readonly tag?: string;
  /**
   * The increment, at least the number of writers (default: exactly that). A larger one leaves
   * offsets free for writers added later without re-planning.
   */
  readonly increment?: number;
}

/** What one writer runs. */
export interface WriterPlan {
  /** 1-based; also its offset. */
  readonly writer: number;
  readonly offset: number;
  readonly increment: number;
  /** SQL to run on this writer, in order. */
  readonly statements: readonly string[];
  /** MySQL only: the my.cnf lines (under [mysqld]) that survive a restart (SET GLOBAL does not). */
  readonly config: readonly string[];
  /** The first numbers this writer issues (three), for the reader's eye. */
  readonly sample: readonly bigint[];
}

export interface WriterPlanSet {
  readonly dialect: PlanDialect;
  readonly writers: number;
  readonly increment: number;
  /** Offsets writers + 1 .. increment: free for writers added later without re-planning. */
  readonly spareOffsets: readonly number[];
  readonly perWriter: readonly WriterPlan[];
  /** The caveats every plan comes with; see {@link PLAN_CAVEAT}. */
  readonly caveat: string;
}

/** The most writers (MySQL's auto_increment_increment maximum). */
export const MAX_WRITERS = 65_535;

/**
 * The seeds' caveat about adding a writer later. The increment is baked into the numbers.
 */
export const PLAN_CAVEAT =
  'The increment is baked into every number already issued: writer i owns i, i + increment, ' +
  'i + 2 x increment, ... Adding a writer beyond the increment means re-planning all of them: ' +
  'stop every writer, choose the new increment, move each counter above the largest number any ' +
  'writer has issued (MySQL: ALTER TABLE ... AUTO_INCREMENT = n; PostgreSQL: ALTER SEQUENCE ... ' +
  'RESTART WITH n), then start them again (`idforge ticket setup` does this for ticket ' +
  'servers). Leave headroom instead: plan more writers than you have (--increment 4 for 2 ' +
  'writers), and a new writer takes a spare offset without touching the others. ' +
  'auto_increment_offset must not exceed auto_increment_increment (MySQL then ignores it), and ' +
  'SET GLOBAL is lost at a restart: put the same settings in my.cnf. The writers drift apart, ' +
  'so numbers are unique but not increasing across writers.';

/**
 * Plans `writers` writers (an integer in [1, 65535]) for `dialect`. Throws `RangeError` for a
 * bad count, dialect, tag, or an increment below the number of writers.
 */
export function planWriters(
  writers: number,
  dialect: PlanDialect,
  options: PlanOptions = {},
): WriterPlanSet {
  if (!Number.isInteger(writers) || writers < 1 || writers > MAX_WRITERS) {
    throw new RangeError(`writers: expected an integer in [1, ${MAX_WRITERS}], got ${writers}`);
  }
  if (!PLAN_DIALECTS.includes(dialect)) {
    const known = PLAN_DIALECTS.map((d) => `"${d}"`).join(' or ');
    throw new RangeError(`dialect: expected ${known}, got ${JSON.stringify(dialect)}`);
  }
  const increment = options.increment ?? writers;
  if (!Number.isInteger(increment) || increment < writers || increment > MAX_WRITERS) {
    throw new RangeError(
      `increment: expected an integer in [writers = ${writers}, ${MAX_WRITERS}], got ${increment}`,
    );
  }
  const name = options.tag;
  if (name !== undefined) assertTicketTag(name);
  const perWriter: WriterPlan[] = [];
  for (let offset = 1; offset <= writers; offset++) {
    perWriter.push({
      writer: offset,
      offset,
      increment,
      ...WRITERS[dialect](increment, offset, name),
      sample: [0, 1, 2].map((k) => BigInt(offset) + BigInt(k) * BigInt(increment)),
    });
  }
  const spareOffsets: number[] = [];
  for (let o = writers + 1; o <= increment; o++) spareOffsets.push(o);
  return { dialect, writers, increment, spareOffsets, perWriter, caveat: PLAN_CAVEAT };
}

/** What one writer of a dialect runs, and the configuration that keeps it across restarts. */
type WriterSteps = (
  increment: number,
  offset: number,
  name: string | undefined,
) => { statements: string[]; config: string[] };

const WRITERS: Readonly<Record<PlanDialect, WriterSteps>> = {
  mysql: (increment, offset, name) => ({
    statements: mysqlStatements(increment, offset, name),
    config: [`auto_increment_increment = ${increment}`, `auto_increment_offset = ${offset}`],
  }),
  postgres: (increment, offset, name) => ({
    statements: pgStatements(increment, offset, name),
    config: [],
  }),
};

function mysqlStatements(increment: number, offset: number, name: string | undefined): string[] {
  const out = [
    `SET GLOBAL auto_increment_increment = ${increment};`,
    `SET GLOBAL auto_increment_offset = ${offset};`,
  ];
  if (name !== undefined) {
    out.push(
      `CREATE TABLE IF NOT EXISTS tickets_${name} (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT ` +
        'PRIMARY KEY, stub CHAR(1) NOT NULL UNIQUE) ENGINE = InnoDB;',
    );
  }
  return out;
}

function pgStatements(increment: number, offset: number, name: string | undefined): string[] {
  return [
    `CREATE SEQUENCE ${name ?? 'ids'} AS bigint INCREMENT BY ${increment} START WITH ${offset} ` +
      'MINVALUE 1 NO CYCLE;',
  ];
}
