/**
 * Writes the report of `idforge bench db` to a directory: report.json, report.md,
 * rate-by-tenth.svg and sizes.svg, as a set that an interrupted run never leaves half-written.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, open, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { rateChartSvg, sizeChartSvg } from './charts.js';
import { BenchReportWriteError } from './errors.js';
import type { DbBenchReport } from './report.js';
import { checkReport, renderReportMarkdown } from './report-md.js';

/** The files writeReport writes, in the order they are moved into place: report.json last. */
export const REPORT_FILES = ['report.md', 'rate-by-tenth.svg', 'sizes.svg', 'report.json'] as const;

/** Writes `text` to a new file at `path` and flushes it to disk before closing. */
async function writeDurably(path: string, text: string): Promise<void> {
  const file = await open(path, 'wx');
  try {
    await file.writeFile(text, 'utf8');
    await file.sync();
  } finally {
    await file.close();
  }
}

/** fsyncs a directory so the renames in it survive a crash; best effort (not every OS can). */
async function syncDir(path: string): Promise<void> {
  try {
    const d = await open(path, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // Directories cannot be opened for fsync on some platforms (Windows); the data files were.
  }
}

/** Whether `path` is a directory; false when nothing is there; throws when a file is. */
async function isExistingDir(path: string): Promise<boolean> {
  try {
    const st = await stat(path);
    if (!st.isDirectory())
      throw new BenchReportWriteError(path, 'ENOTDIR: a file is there, not a folder');
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

/** A file-system failure as the report's error: the system's code and its words, no path. */
function writeError(dir: string, e: unknown): BenchReportWriteError {
  if (e instanceof BenchReportWriteError) return e;
  const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
  // "EPERM: operation not permitted, mkdir '/x/y'": the path is named once, by `dir`.
  const words = String((e as Error).message ?? '').split(',')[0] ?? code;
  return new BenchReportWriteError(dir, words.startsWith(code) ? words : code, e);
}

/** Creates and removes an empty folder in `parent`: the one honest test that it takes writes. */
async function probe(parent: string): Promise<void> {
  await rmdir(await mkdtemp(join(parent, '.idforge-probe-')));
}

/**
 * Checks, without creating anything that stays, that {@link writeReport} can write into `dir`:
 * `dir` is a folder that takes writes, or does not exist and its nearest existing ancestor is a
 * folder that takes writes. Run it before a long measurement, whose report would otherwise be
 * written only at the end. A probe, not `access()`: root passes `access()` on a read-only mount
 * or an immutable folder, and writing there still fails.
 * @throws BenchReportWriteError naming the system's reason (EACCES, EROFS, EPERM, ENOTDIR...).
 */
export async function checkReportDir(dir: string): Promise<void> {
  const target = resolve(dir);
  try {
    if (await isExistingDir(target)) {
      await probe(target);
      await probe(dirname(target));
      return;
    }
    let ancestor = dirname(target);
    while (!(await isExistingDir(ancestor)) && dirname(ancestor) !== ancestor) {
      ancestor = dirname(ancestor);
    }
    await probe(ancestor);
  } catch (e) {
    throw writeError(dir, e);
  }
}

/**
 * Writes report.json (2-space JSON and a newline), report.md, rate-by-tenth.svg and sizes.svg
 * into `dir`, creating `dir` (and its parents) when missing, and resolves with the four paths
 * (`join(dir, name)`, report.json first).
 *
 * Atomicity: everything is rendered first, then written and fsynced into a fresh sibling
 * directory `${dir}.tmp-<pid>-<random>`. When `dir` does not exist that directory is renamed to
 * `dir`, so the whole set appears at once. When it does exist, each file is renamed over its
 * old one (each rename is atomic, so no file is ever seen half-written), report.json last: a
 * reader that sees the new report.json sees the new Markdown and charts too, and an interrupted
 * run leaves the old report.json, or none. Other files in `dir` are left alone (swapping the
 * whole directory would drop them and leave a moment with no `dir` at all). On failure the
 * temporary directory is removed and the error rethrown; a crash can leave it behind, named
 * so that it is plainly not the report.
 * @throws TypeError when `dir` is not a non-empty string or `report` is not a report object.
 * @throws BenchReportWriteError when the files cannot be written there (checkReportDir says so
 * beforehand).
 */
export async function writeReport(dir: string, report: DbBenchReport): Promise<string[]> {
  if (typeof dir !== 'string' || dir === '') {
    throw new TypeError(
      `expected a directory path, got ${dir === '' ? 'an empty string' : typeof dir}`,
    );
  }
  checkReport(report);
  const texts: Record<(typeof REPORT_FILES)[number], string> = {
    'report.md': renderReportMarkdown(report),
    'rate-by-tenth.svg': rateChartSvg(report),
    'sizes.svg': sizeChartSvg(report),
    'report.json': `${JSON.stringify(report, null, 2)}\n`,
  };
  try {
    await writeFiles(resolve(dir), texts);
  } catch (e) {
    throw writeError(dir, e);
  }
  return ['report.json', 'report.md', 'rate-by-tenth.svg', 'sizes.svg'].map((n) => join(dir, n));
}

/** writeReport's files, into a fresh sibling folder of `target`, then moved into place. */
async function writeFiles(target: string, texts: Record<string, string>): Promise<void> {
  const parent = dirname(target);
  const existed = await isExistingDir(target);
  await mkdir(parent, { recursive: true });
  const tmp = join(
    parent,
    `${basename(target)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`,
  );
  await mkdir(tmp);
  try {
    for (const name of REPORT_FILES) await writeDurably(join(tmp, name), texts[name]!);
    await syncDir(tmp);
    await moveIntoPlace(tmp, target, existed);
    await syncDir(parent);
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw e;
  }
}

/**
 * Moves the files written in `tmp` to `target`: the whole directory at once when `target` did
 * not exist (and still does not), else file by file, report.json last, and `tmp` removed.
 */
async function moveIntoPlace(tmp: string, target: string, existed: boolean): Promise<void> {
  if (!existed && (await renameDir(tmp, target))) return;
  for (const name of REPORT_FILES) await rename(join(tmp, name), join(target, name));
  await syncDir(target);
  await rm(tmp, { recursive: true, force: true });
}

/** Renames the directory `from` to `to`; false when `to` exists by now, not empty. */
async function renameDir(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (e) {
    // Someone made `dir` meanwhile (non-empty: ENOTEMPTY/EEXIST): move file by file instead.
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
    return false;
  }
}
