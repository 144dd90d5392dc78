/**
 * Opens the database of `idforge bench db` from a URL, importing each engine (and its driver)
 * only when its scheme is asked for. Kept apart from open.ts, the stores' switchboard, because
 * a bench engine is not a store: it creates, fills and drops tables of its own.
 *
 *   sqlite:PATH                      a file (created if missing)
 *   postgres://user@host:port/db     the bench's tables go in the schema idforge_bench
 *   mysql://user@host:port/db        MariaDB or MySQL; the database must be named
 *   leveldb:DIR                      a directory; one LevelDB database per scheme inside it
 */
import type { BenchEngine } from 'idforge/bench';
import { redactUrl, storeScheme } from './url.js';

/**
 * Opens a bench engine. Throws `RangeError` for a malformed URL or one of another scheme;
 * rejects with `DriverMissingError` when the engine's driver is not installed,
 * `StoreUnavailableError` / `StoreAuthError` when the server cannot be used.
 */
export async function openBenchEngine(url: string): Promise<BenchEngine> {
  const scheme = storeScheme(url);
  switch (scheme) {
    case 'sqlite': {
      const { openSqliteBenchEngine } = await import('./sqlite/bench-engine.js');
      return openSqliteBenchEngine(url);
    }
    case 'postgres': {
      const { openPostgresBenchEngine } = await import('./postgres/bench-engine.js');
      return openPostgresBenchEngine(url);
    }
    case 'mysql': {
      const { openMysqlBenchEngine } = await import('./mysql/bench-engine.js');
      return openMysqlBenchEngine(url);
    }
    case 'leveldb': {
      const { openLevelBenchEngine } = await import('./leveldb/bench-engine.js');
      return openLevelBenchEngine(url);
    }
    default:
      throw new RangeError(
        `--store: expected sqlite:PATH, postgres://..., mysql://... or leveldb:DIR, got "${scheme}" in ${redactUrl(url)}`,
      );
  }
}
