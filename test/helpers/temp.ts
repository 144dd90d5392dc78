// Temporary directories of a test: each its own under the OS's temp folder (never a shared or
// fixed path, so files running at once never meet), and removed when the test is done.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

export interface TempDir {
  readonly dir: string;
  /** Removes the directory and everything in it; a second call does nothing. */
  remove(): void;
}

/** A new temporary directory, removed by its `remove()` (in a finally or an after hook). */
export function tempDir(prefix = 'idforge-test-'): TempDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A new temporary directory removed by node:test's after() of where it is called: at the top
 * of a file, once every test of the file has run (skipped suites too); in a describe(), after
 * that suite.
 */
export function suiteTempDir(prefix?: string): string {
  const t = tempDir(prefix);
  after(() => t.remove());
  return t.dir;
}
