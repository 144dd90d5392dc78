/**
 * Operational errors of `idforge bench db` (idforge/bench): the target holds tables the bench
 * did not create, or the report cannot be written. Part of the one catalogue: codes in the
 * core's `errors.ts`, each documented in `docs/errors.md`.
 */
import { IdforgeError } from '../core/index.js';

/**
 * `idforge bench db` refused a target that holds tables (or files) it did not create: the
 * bench creates, fills and drops tables of its own, and is not meant for a database in use.
 * `objects` names what it found (at most the first ten are in the message).
 */
export class BenchTargetInUseError extends IdforgeError {
  readonly backend: string;
  readonly address: string;
  readonly objects: readonly string[];

  constructor(backend: string, address: string, objects: readonly string[]) {
    const shown = objects.slice(0, 10).join(', ') + (objects.length > 10 ? ', …' : '');
    super(
      'IDF_BENCH_TARGET_IN_USE',
      `the ${backend} database at ${address} holds ${objects.length} table(s) the bench did ` +
        `not create (${shown}). Point --store at an empty database made for the bench ` +
        '(CREATE DATABASE bench), or pass --force to run beside them (its own tables are ' +
        'named idforge_bench_* and dropped at the end).',
    );
    this.backend = backend;
    this.address = address;
    this.objects = objects;
  }
}

/**
 * `writeReport` (`idforge bench db --out`) could not write the report into `dir`: the folder,
 * or the one it would be created in, refuses writes (read-only, immutable, no permission),
 * a component of the path is a file, or the disk is full. `reason` is the system's code
 * (EACCES, EROFS, ENOTDIR, ENOSPC...) and `cause` its error. `idforge bench db` checks the
 * folder before it measures anything, and prints a finished report it could not write.
 */
export class BenchReportWriteError extends IdforgeError {
  readonly dir: string;
  readonly reason: string;

  constructor(dir: string, reason: string, cause?: unknown) {
    super(
      'IDF_BENCH_REPORT_WRITE',
      `cannot write the report to ${dir} (${reason}): pick a folder you can write to (idforge bench db --out)`,
      cause === undefined ? undefined : { cause },
    );
    this.dir = dir;
    this.reason = reason;
  }
}
