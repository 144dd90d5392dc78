/**
 * The database engines the library loads, backfills or writes SQL for, once. Every list of
 * engines in the library is derived from this table (the bench's engines, the backfill's
 * targets, the dialects of `sqlFunctions` and `planWriters`), and what differs between engines
 * is a trait here, never a name compared. The library cannot import @idforge/stores, whose
 * backend registry opens the engines by URL; test/stores/floor-plan.test.ts checks that the
 * two agree (a backend opens a bench engine, a backfill target or SQL functions exactly when
 * its engine here has that trait).
 */

/** What the library needs to know of one engine; a trait absent is a port it does not serve. */
export interface EngineTraits {
  /** `idforge bench db` loads it. */
  readonly bench?: {
    /**
     * How it keeps rows: 'pages' (B-tree pages in a cache the indexes compete for) or 'lsm'
     * (a memtable flushed and compacted), which changes what the cache ratio means.
     */
    readonly store: 'pages' | 'lsm';
    /** It holds a segment table, so the bench's `sequence` scheme can run on it. */
    readonly sequence: boolean;
    /** `UUID_TO_BIN(u, 1)` is its own idiom: the bench's `uuidv1-swap` scheme runs by default. */
    readonly uuidSwapIdiom?: boolean;
  };
  /** `idforge backfill` fills its tables. */
  readonly backfill?: {
    /** A text column may hold points in time (SQLite keeps them as date-time text). */
    readonly textHoldsTime: boolean;
  };
  /** It holds idforge's SQL functions, in this dialect of `sqlFunctions`. */
  readonly sqlFunctions?: string;
  /** `planWriters` plans its offset/increment writers, in this dialect. */
  readonly writerPlan?: string;
}

// The order is the order messages list engines and dialects in ("mysql or postgres").
export const ENGINES = {
  mysql: {
    bench: { store: 'pages', sequence: true, uuidSwapIdiom: true },
    backfill: { textHoldsTime: false },
    // The functions need MariaDB 10.10+ (docs/in-database.md): the dialect is MariaDB's.
    sqlFunctions: 'mariadb',
    writerPlan: 'mysql',
  },
  postgres: {
    bench: { store: 'pages', sequence: true },
    backfill: { textHoldsTime: false },
    sqlFunctions: 'postgres',
    writerPlan: 'postgres',
  },
  sqlite: {
    bench: { store: 'pages', sequence: true },
    backfill: { textHoldsTime: true },
  },
  leveldb: {
    bench: { store: 'lsm', sequence: false },
  },
} as const satisfies Record<string, EngineTraits>;

/** An engine's name, as its backend's in @idforge/stores ('postgres', 'mysql', ...). */
export type EngineName = keyof typeof ENGINES;

type Engines = typeof ENGINES;

/** The engines that have trait `T`. */
export type EngineWith<T extends keyof EngineTraits> = {
  [N in EngineName]: Engines[N] extends Record<T, unknown> ? N : never;
}[EngineName];

/** The engines that have trait `trait`, in the table's order. */
export function enginesWith<T extends keyof EngineTraits>(trait: T): EngineWith<T>[] {
  return (Object.keys(ENGINES) as EngineName[]).filter(
    (name) => traitsOf(name)[trait] !== undefined,
  ) as EngineWith<T>[];
}

/** An engine's traits, widened to {@link EngineTraits}: every optional trait readable. */
export function traitsOf(name: EngineName): EngineTraits {
  return ENGINES[name];
}

/** The dialects of `sqlFunctions` ('postgres', 'mariadb'). */
export type SqlDialectName = Engines[EngineWith<'sqlFunctions'>]['sqlFunctions'];

/** The dialects of `planWriters` ('mysql', 'postgres'). */
export type PlanDialectName = Engines[EngineWith<'writerPlan'>]['writerPlan'];

/** The dialects a trait names. */
type DialectOf<T extends 'sqlFunctions' | 'writerPlan'> = T extends 'sqlFunctions'
  ? SqlDialectName
  : PlanDialectName;

/** Every dialect some engine's trait `trait` names, in the table's order. */
export function dialectsOf<T extends 'sqlFunctions' | 'writerPlan'>(trait: T): DialectOf<T>[] {
  return enginesWith(trait).map((n) => traitsOf(n)[trait]) as DialectOf<T>[];
}
