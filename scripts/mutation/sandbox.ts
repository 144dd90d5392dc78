// A copy of the repository to mutate: the files git knows (tracked, and new ones not ignored)
// copied to a temporary directory, node_modules mirrored as links (a workspace package's
// link points into the copy, every other package to the real one). Mutants are written only
// here, so the working tree is never touched, whatever stops the run.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Creates a sandbox copy of `root`; returns its path. */
export function createSandbox(root: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'idforge-mutation-'));
  const listed = execFileSync('git', ['ls-files', '-z', '-co', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  for (const file of listed.split('\0')) {
    if (file === '' || !existsSync(join(root, file))) continue; // deleted, not yet staged
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(root, file), join(dir, file));
  }
  for (const modules of nodeModuleDirs(root)) mirror(join(root, modules), join(dir, modules));
  return dir;
}

export function removeSandbox(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

function nodeModuleDirs(root: string): string[] {
  const dirs = ['node_modules'];
  for (const pkg of readdirSync(join(root, 'packages'))) {
    if (existsSync(join(root, 'packages', pkg, 'node_modules'))) {
      dirs.push(join('packages', pkg, 'node_modules'));
    }
  }
  return dirs;
}

/** `to` becomes a directory of links to `from`'s entries (scoped folders entry by entry). */
function mirror(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    const stat = lstatSync(source);
    if (stat.isSymbolicLink()) {
      const target = readlinkSync(source);
      // A workspace package's relative link stays relative: it names the sandbox's copy.
      symlinkSync(target, join(to, name));
    } else if (name.startsWith('@') && stat.isDirectory()) {
      mirror(source, join(to, name));
    } else {
      symlinkSync(source, join(to, name));
    }
  }
}
