/**
 * Opens the database of `idforge backfill` from a URL, importing each engine (and its driver)
 * only when its scheme is asked for. Kept apart from open.ts, the stores' switchboard, because
 * a backfill target is not a store: it changes one of the application's own tables.
 *
 *   sqlite:PATH                      an existing file
 *   postgres://user@host:port/db     the table is found on the search_path, or schema.table
 *   mysql://user@host:port/db        MariaDB or MySQL; the table is in the URL's database
 */
import type { BackfillTarget } from 'idforge/public';
import { redactUrl, storeScheme } from './url.js';

/**
 * Opens a backfill target. Throws `RangeError` for a malformed URL or one of another scheme;
 * rejects with `DriverMissingError` when the engine's driver is not installed,
 * `StorePathError` for a sqlite: path that cannot be used, `StoreUnavailableError` /
 * `StoreAuthError` when the server cannot be used.
 */
export async function openBackfillTarget(url: string): Promise<BackfillTarget> {
  const scheme = storeScheme(url);
  switch (scheme) {
    case 'sqlite': {
      const { openSqliteBackfillTarget } = await import('./sqlite/backfill-target.js');
      return openSqliteBackfillTarget(url);
    }
    case 'postgres': {
      const { openPostgresBackfillTarget } = await import('./postgres/backfill-target.js');
      return openPostgresBackfillTarget(url);
    }
    case 'mysql': {
      const { openMysqlBackfillTarget } = await import('./mysql/backfill-target.js');
      return openMysqlBackfillTarget(url);
    }
    default:
      throw new RangeError(
        `--store: expected sqlite:PATH, postgres://... or mysql://..., got "${scheme}" in ${redactUrl(url)}`,
      );
  }
}
