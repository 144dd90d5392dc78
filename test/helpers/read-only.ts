// A file or folder that really refuses writes, for tests of what a command does on one. Tests
// run as root, and root ignores permission bits: chmod 0555 would change nothing. As root the
// path is made immutable instead (`chattr +i`: even root gets EPERM writing in it, or to it);
// as any other user, its write bits are taken away. readOnlySkip() says why a test cannot run
// (no chattr, a filesystem without the attribute), probed once on a scratch folder.
import { execFileSync } from 'node:child_process';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp.js';

const asRoot = process.getuid?.() === 0;

/** Makes `path` refuse writes; returns the function that gives them back (call it in finally). */
export function makeReadOnly(path: string): () => void {
  if (asRoot) {
    execFileSync('chattr', ['+i', path], { stdio: 'pipe' });
    return () => execFileSync('chattr', ['-i', path], { stdio: 'pipe' });
  }
  const mode = statSync(path).mode & 0o7777;
  chmodSync(path, mode & ~0o222);
  return () => chmodSync(path, mode);
}

let probed: Promise<string | false> | undefined;

/** False when {@link makeReadOnly} works here; else the reason, for a test's `skip`. */
export function readOnlySkip(): Promise<string | false> {
  probed ??= Promise.resolve().then(() => {
    const { dir, remove: removeDir } = tempDir('idforge-ro-probe-');
    try {
      const undo = makeReadOnly(dir);
      try {
        writeFileSync(join(dir, 'x'), '');
        return 'a read-only folder still takes writes here';
      } catch {
        return false;
      } finally {
        undo();
      }
    } catch (error) {
      return `cannot make a folder read-only here: ${(error as Error).message.split('\n')[0]}`;
    } finally {
      removeDir();
    }
  });
  return probed;
}
