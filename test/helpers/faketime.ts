// Debian's libfaketime for tests that step a real process's wall clock. When it is missing,
// scripts/services/faketime.sh installs it (as run-tests does for etcd and Chromium) unless
// IDFORGE_NO_AUTOSTART=1; if that fails the tests skip with the reason, or, with
// IDFORGE_REQUIRE_SERVICES=1, fail.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { requireServices } from './services.js';

const script = fileURLToPath(new URL('../../scripts/services/faketime.sh', import.meta.url));

/** The library's path, or a skip reason; throws when missing under IDFORGE_REQUIRE_SERVICES=1. */
export function libfaketime(): { path: string; skip: false } | { path: null; skip: string } {
  const args = process.env.IDFORGE_NO_AUTOSTART === '1' ? ['path'] : ['install'];
  const r = spawnSync('bash', [script, ...args], { encoding: 'utf8', timeout: 300_000 });
  const path = r.stdout.trim();
  if (r.status === 0 && existsSync(path)) return { path, skip: false };
  const reason = `libfaketime is not installed (${script}: ${r.stderr.trim() || r.error?.message})`;
  if (requireServices) throw new Error(`${reason}, and IDFORGE_REQUIRE_SERVICES=1 requires it`);
  return { path: null, skip: `${reason} (set IDFORGE_REQUIRE_SERVICES=1 to make this a failure)` };
}

/**
 * The environment that runs a process under libfaketime with its wall clock offset by what
 * `file` says (`+0`, `-0.05`, `-3600`: seconds), re-read at every clock call; the monotonic
 * clock is left alone. {@link stepWall} rewrites the file.
 */
export function fakeWallEnv(lib: string, file: string): Record<string, string> {
  stepWall(file, 0);
  return {
    LD_PRELOAD: lib,
    FAKETIME_TIMESTAMP_FILE: file,
    FAKETIME_NO_CACHE: '1',
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
  };
}

/** Sets the faked wall clock to the real one plus `offsetMs` (negative: behind). */
export function stepWall(file: string, offsetMs: number): void {
  const s = offsetMs / 1000;
  writeFileSync(file, `${s < 0 ? '-' : '+'}${Math.abs(s)}\n`);
}
