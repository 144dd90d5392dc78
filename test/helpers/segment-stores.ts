// Opens a segment store from a URL by its scheme (sqlite:, postgres://, mysql://), for tests
// and fixtures that run on every backend.

import type { SegmentStore } from '../../packages/idforge/src/sequences/ports.js';
import { openMysqlSegmentStore } from '../../packages/stores/src/mysql/segment-store.js';
import { openPostgresSegmentStore } from '../../packages/stores/src/postgres/segment-store.js';
import { openSqliteSegmentStore } from '../../packages/stores/src/sqlite/segment-store.js';
import { storeScheme } from '../../packages/stores/src/url.js';

export function openTestSegmentStore(
  url: string,
  options: { connectTimeoutMs?: number } = {},
): Promise<SegmentStore> {
  const scheme = storeScheme(url);
  if (scheme === 'sqlite') return openSqliteSegmentStore(url, options);
  if (scheme === 'postgres') return openPostgresSegmentStore(url, options);
  if (scheme === 'mysql') return openMysqlSegmentStore(url, options);
  throw new RangeError(`segment store URL: expected sqlite:, postgres:// or mysql://, got ${url}`);
}
