/**
 * Operational errors of `idforge/public` (opaque public IDs). Part of the one catalogue: codes
 * in the core's `errors.ts`, each documented with its fix in `docs/errors.md` (a test keeps
 * the two in step). A file of their own, so a service can map them to a status without
 * loading the cipher.
 *
 * No message or field ever carries key material. A rejected public ID is quoted only in part
 * (its first 64 characters): it came from outside and may be long.
 */
import { IdforgeError } from '../core/index.js';

/** Why a public ID was rejected. */
export type PublicIdInvalidReason =
  /** Not the length of any public ID of that prefix (after the prefix). */
  | 'length'
  /** A character outside the alphabet, or unused trailing bits not zero. */
  | 'alphabet'
  /** The prefix is missing, another one, or present where none was expected. */
  | 'prefix'
  /** The key-version character names no known key. */
  | 'version'
  /** Well formed, but its check failed: altered, made up, or issued for another prefix. */
  | 'forged';

function clip(input: string): string {
  return input.length <= 64 ? input : `${input.slice(0, 61)}...`;
}

/**
 * A public ID was altered, made up, issued for another prefix or under an unknown key, or is
 * malformed. It never decodes to some other row: a made-up ID of the right shape passes the
 * check with probability 2^-64 (64-bit IDs) or 2^-40 (128-bit IDs) per guess. Answer it as
 * "not found"; `reason` is for logs, not for the caller (it tells a forger nothing useful,
 * but neither does it help a legitimate user).
 */
export class PublicIdInvalidError extends IdforgeError {
  readonly reason: PublicIdInvalidReason;
  /** The rejected input (its first 64 characters). */
  readonly input: string;
  /** The prefix the caller expected (`undefined`: none). */
  readonly prefix: string | undefined;

  constructor(reason: PublicIdInvalidReason, detail: string, input: string, prefix?: string) {
    const want = prefix === undefined ? 'without a prefix' : `with prefix "${prefix}"`;
    super(
      'IDF_PUBLIC_ID_INVALID',
      `"${clip(input)}" is not a public ID issued by these keys ${want}: ${detail}`,
    );
    this.reason = reason;
    this.input = clip(input);
    this.prefix = prefix;
  }
}

/**
 * A genuine public ID (its check passed) was issued under a key version marked retired. The
 * row may exist; the ID no longer opens it. Issue the row's current public ID (encoding uses
 * the current key), or un-retire the version if it was retired too early.
 */
export class PublicKeyRetiredError extends IdforgeError {
  /** The retired key version the ID names. */
  readonly version: number;

  constructor(version: number) {
    super(
      'IDF_PUBLIC_KEY_RETIRED',
      `this public ID was issued under key version ${version}, which is retired: IDs of that ` +
        'version are no longer accepted. Use the current public ID of the row; if version ' +
        `${version} was retired too early, remove "retired" from its line in the key file.`,
    );
    this.version = version;
  }
}

/**
 * A public-ID key file (or the value of `IDFORGE_PUBLIC_KEYS`) cannot be used: a line that is
 * not `VERSION:KEY[:retired]`, a key that is not 16 or 32 bytes of base64url, a version out of
 * range or listed twice, or no key at all. `line` is the 1-based line of the text (several
 * comma-separated entries share one); the key itself is never quoted.
 */
export class PublicKeysInvalidError extends IdforgeError {
  /** The 1-based line at fault, `undefined` when the text as a whole is. */
  readonly line: number | undefined;

  constructor(detail: string, line?: number) {
    const where = line === undefined ? '' : `line ${line}: `;
    super(
      'IDF_PUBLIC_KEYS_INVALID',
      `public-ID keys: ${where}${detail}. Each entry reads VERSION:KEY or VERSION:KEY:retired ` +
        '(KEY: 16 or 32 bytes in base64url); `idforge public keygen` writes a valid file.',
    );
    this.line = line;
  }
}
