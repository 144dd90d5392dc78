import { closeSync, openSync, renameSync, writeSync } from 'node:fs';
import {
  formatUlid,
  formatUuid,
  IdforgeError,
  InvalidIdError,
  parseUlid,
  parseUuid,
} from '../../core/index.js';
import {
  formatPublicKeys,
  generatePublicKey,
  PUBLIC_KEY_MAX_VERSION,
  PublicIds,
  type PublicKey,
} from '../../public/index.js';
import { UINT64_MAX } from '../../snowflake/index.js';
import { integer, type Options, type OptionValues } from '../args.js';
import type { Command } from '../host.js';
import { type CliIo, collectInputs, excerpt, LineWriter, UsageError } from '../io.js';
import { loadPublicKeys } from '../keys.js';

export const publicHelp = `Usage: idforge public <keygen|retire|encode|decode> [options]

Opaque public IDs: an internal ID (64-bit decimal, UUID or ULID) shown to the world as a
fixed-length, tamper-evident string (AES under a versioned key), optionally with a type prefix.

  keygen [--out F] [--version N] [--bytes 16|32]
                     write a new key file (mode 0600; refuses to overwrite F) with one key,
                     version N (default 1); without --out, print the file's text
  keygen --key-file F [--version N]
                     add a new key to F (default version: the highest + 1): it encodes from
                     now on, every older version still decodes
  retire <N> --key-file F
                     mark version N retired: its IDs fail with IDF_PUBLIC_KEY_RETIRED
  encode <id...> [--prefix P]
                     64-bit decimal IDs give 23 characters, UUIDs and ULIDs 29 (plus P_)
  decode <pid...> [--prefix P] [--as uuid|ulid]
                     the internal ID: decimal for 64-bit, UUID text (or --as ulid) for 128-bit

Options:
  --key-file F       the key file (default: the keys in $IDFORGE_PUBLIC_KEYS, the file's text
                     with entries on lines or separated by commas)
  --prefix P         type prefix: 1-63 of a-z 0-9 _, a letter first (decode must be given the
                     prefix the ID was encoded with)
  --json             one JSON array of {id, publicId} (64-bit IDs as strings; a failed
                     input has {input, error: {code, message}})

Use - to read IDs from standard input. Exit code 1 if any input failed (a tampered, made-up
or retired ID: the error and its code go to standard error), 2 for a usage mistake.

Examples:
  idforge public keygen --out public-keys.txt
  idforge public encode 1234567890123456789 --prefix inv --key-file public-keys.txt
  idforge public decode inv_1… --prefix inv --key-file public-keys.txt
  idforge public keygen --key-file public-keys.txt && idforge public retire 1 --key-file public-keys.txt
`;

const publicOptions = {
  out: { type: 'string' },
  'key-file': { type: 'string' },
  version: { type: 'string' },
  bytes: { type: 'string' },
  prefix: { type: 'string' },
  as: { type: 'string' },
  json: { type: 'boolean' },
} as const satisfies Options;

export type PublicValues = OptionValues<typeof publicOptions>;

/** `idforge public <sub>`. */
export const publicCli: Command<typeof publicOptions> = {
  summary: ['public <sub>', 'opaque public IDs: keygen, retire, encode <id...>, decode <pid...>'],
  help: publicHelp,
  options: publicOptions,
  run: publicCommand,
};

/** `idforge public <sub>`: returns the exit code. */
export async function publicCommand(
  positionals: string[],
  values: PublicValues,
  io: CliIo,
): Promise<number> {
  const [sub, ...rest] = positionals;
  switch (sub) {
    case 'keygen':
      return keygen(rest, values, io);
    case 'retire':
      return retire(rest, values, io);
    case 'encode':
    case 'decode':
      return convert(sub, rest, values, io);
    default:
      throw new UsageError(
        `expected a subcommand (keygen, retire, encode, decode), got ${sub === undefined ? 'nothing' : `"${sub}"`}`,
      );
  }
}

function keygen(rest: string[], values: PublicValues, io: CliIo): number {
  if (rest.length > 0) throw new UsageError(`public keygen: unexpected argument "${rest[0]}"`);
  only('keygen', values, ['out', 'key-file', 'version', 'bytes']);
  const bytes = values.bytes === undefined ? 16 : integer('--bytes', values.bytes, 16, 32);
  if (bytes !== 16 && bytes !== 32)
    throw new UsageError(`--bytes: expected 16 or 32, got ${bytes}`);
  const file = values['key-file'];
  if (file !== undefined) {
    if (values.out !== undefined)
      throw new UsageError('public keygen: --out and --key-file exclude each other');
    const keys = loadPublicKeys(file, io, 'idforge public', '');
    const top = Math.max(...keys.map((k) => k.version));
    const version = versionArg(values.version, top + 1);
    if (keys.some((k) => k.version === version))
      throw new UsageError(`--version: ${version} is already in ${file}`);
    const key = generatePublicKey(version, undefined, bytes);
    if (version < top) {
      io.stderr.write(
        `idforge public keygen: version ${version} is below ${top}: it decodes, but encodes only once every higher version is retired\n`,
      );
    }
    writeKeyFile(file, [...keys, key], false);
    io.stdout.write(
      `${file}: added key version ${version}${version > top ? '; it encodes from now on' : ''}\n`,
    );
    return 0;
  }
  const text = formatPublicKeys([
    generatePublicKey(versionArg(values.version, 1), undefined, bytes),
  ]);
  if (values.out === undefined) {
    io.stdout.write(text);
    return 0;
  }
  writeKeyFile(values.out, undefined, true, text);
  io.stdout.write(
    `${values.out}: new key file (mode 0600), key version ${versionArg(values.version, 1)}\n`,
  );
  return 0;
}

function retire(rest: string[], values: PublicValues, io: CliIo): number {
  only('retire', values, ['key-file']);
  if (rest.length !== 1) throw new UsageError('public retire: expected one version number');
  const file = values['key-file'];
  if (file === undefined) throw new UsageError('public retire: expected --key-file F');
  const version = integer('version', rest[0]!, 0, PUBLIC_KEY_MAX_VERSION);
  const keys = loadPublicKeys(file, io, 'idforge public', '');
  if (!keys.some((k) => k.version === version))
    throw new UsageError(`public retire: ${file} has no key version ${version}`);
  const next = keys.map((k) => (k.version === version ? { ...k, retired: true } : k));
  if (next.every((k) => k.retired === true)) {
    throw new UsageError(
      `public retire: version ${version} is the last key not retired; add one first (idforge public keygen --key-file ${file})`,
    );
  }
  writeKeyFile(file, next, false);
  io.stdout.write(`${file}: key version ${version} retired; its IDs are now refused\n`);
  return 0;
}

async function convert(
  sub: 'encode' | 'decode',
  rest: string[],
  values: PublicValues,
  io: CliIo,
): Promise<number> {
  only(
    sub,
    values,
    sub === 'encode' ? ['key-file', 'prefix', 'json'] : ['key-file', 'prefix', 'as', 'json'],
  );
  const as = values.as ?? 'uuid';
  if (as !== 'uuid' && as !== 'ulid')
    throw new UsageError(`--as: expected uuid or ulid, got "${as}"`);
  const ids = new PublicIds({ keys: loadKeys(values, io) });
  const prefix = values.prefix;
  if (prefix !== undefined) ids.encode(0n, prefix); // a malformed prefix is a usage mistake
  const inputs = await collectInputs(rest, io);
  const out = new LineWriter(io.stdout);
  const json: unknown[] = [];
  let failed = 0;
  for (const input of inputs) {
    try {
      const row =
        sub === 'encode'
          ? { id: input, publicId: ids.encode(internalId(input), prefix) }
          : { publicId: input, id: shown(ids.decode(input, prefix), as) };
      if (values.json) json.push(row);
      else out.line(sub === 'encode' ? row.publicId : row.id);
    } catch (e) {
      if (!(e instanceof IdforgeError)) throw e;
      failed++;
      if (values.json) json.push({ input, error: { code: e.code, message: e.message } });
      out.flush();
      io.stderr.write(`idforge public ${sub}: ${excerpt(input)}: ${e.message} [${e.code}]\n`);
    }
  }
  if (values.json) out.line(JSON.stringify(json));
  out.flush();
  return failed > 0 ? 1 : 0;
}

/** A decimal 64-bit ID, a UUID or a ULID. */
function internalId(input: string): bigint | Uint8Array {
  if (/^[0-9]+$/.test(input)) {
    const n = BigInt(input);
    if (n > UINT64_MAX)
      throw new InvalidIdError('64-bit id', 'range', 'expected at most 2^64 - 1', input);
    return n;
  }
  if (input.length === 26) return parseUlid(input);
  return parseUuid(input);
}

function shown(id: bigint | Uint8Array, as: string): string {
  if (typeof id === 'bigint') return id.toString();
  return as === 'ulid' ? formatUlid(id) : formatUuid(id);
}

function only(sub: string, values: PublicValues, allowed: readonly string[]): void {
  for (const [k, v] of Object.entries(values)) {
    if (v !== undefined && k !== 'help' && !allowed.includes(k))
      throw new UsageError(`public ${sub}: --${k} does not apply`);
  }
}

function versionArg(text: string | undefined, fallback: number): number {
  if (text === undefined) {
    if (fallback > PUBLIC_KEY_MAX_VERSION)
      throw new UsageError(
        `the key file already holds version ${PUBLIC_KEY_MAX_VERSION}, the highest`,
      );
    return fallback;
  }
  return integer('--version', text, 0, PUBLIC_KEY_MAX_VERSION);
}

/** `--key-file F`, else `$IDFORGE_PUBLIC_KEYS` from io.env. */
function loadKeys(values: PublicValues, io: CliIo): PublicKey[] {
  return loadPublicKeys(
    values['key-file'],
    io,
    'idforge public',
    'expected --key-file F or $IDFORGE_PUBLIC_KEYS (idforge public keygen --out F writes a key file)',
  );
}

/**
 * Writes a key file with mode 0600: a new one exclusively (never over an existing file), or
 * an existing one replaced whole through a 0600 sibling and a rename, so a reader never sees
 * half a file and the keys are never readable by others, not even for a moment.
 */
function writeKeyFile(
  file: string,
  keys: readonly PublicKey[] | undefined,
  fresh: boolean,
  text = formatPublicKeys(keys ?? []),
): void {
  const target = fresh ? file : `${file}.${Math.random().toString(36).slice(2, 10)}.tmp`;
  let fd: number;
  try {
    fd = openSync(target, 'wx', 0o600);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && fresh)
      throw new UsageError(
        `--out: ${file} exists; choose another file, or add a version with --key-file ${file}`,
      );
    throw new UsageError(`cannot write ${target} (${code ?? e})`);
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  if (!fresh) renameSync(target, file);
}
