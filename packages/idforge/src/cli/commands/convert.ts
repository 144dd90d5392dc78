import { Buffer } from 'node:buffer';
import {
  IdforgeError,
  InvalidIdError,
  inspect,
  parseKsuid,
  parseSnowflake,
  parseUlid,
} from '../../core/index.js';
import { isTypeIdPrefix, parseTypeId, typeIdToUuid, uuidToTypeId } from '../../public/index.js';
import { ulidToUuid, uuidToUlid } from '../../ulid/index.js';
import { fromMysqlSwap, toMysqlSwap, v1ToV6, v6ToV1 } from '../../uuid/index.js';
import type { Options, OptionValues } from '../args.js';
import { formatId } from '../formats.js';
import type { Command } from '../host.js';
import { type CliIo, collectInputs, excerpt, LineWriter, UsageError } from '../io.js';

export const convertHelp = `Usage: idforge convert <id...> --to <form> [--from mysql-swap] [--prefix P]

Converts between forms, one result per line. Use - to read IDs from standard input.
Exit code 1 if any input could not be converted (the error goes to standard error).

  --to v6          UUIDv1 → UUIDv6 (same time, node and clock sequence, sortable order)
  --to v1          UUIDv6 → UUIDv1
  --to mysql-swap  UUID → hex of MySQL's UUID_TO_BIN(u, 1) (time fields swapped)
  --to uuid        ULID or TypeID → UUID text form (same 128 bits), or with --from
                   mysql-swap, hex of UUID_TO_BIN(u, 1) → UUID (MySQL's BIN_TO_UUID(b, 1))
  --to ulid        UUID → ULID text form (same 128 bits)
  --to typeid      UUID → TypeID (jetify spec 0.3) with --prefix P (default: none)
  --to hex         UUID, ULID or TypeID → its 16 bytes, KSUID → its 20 bytes, Snowflake
                   (decimal) → its 64 bits (16 digits), as lower-case hex

Standard input (-) is read as whitespace-separated IDs, each trimmed; an argument is taken
exactly as given. An error echoes at most 100 characters of its input.
`;

const TARGETS = ['v6', 'v1', 'mysql-swap', 'uuid', 'ulid', 'typeid', 'hex'] as const;
type Target = (typeof TARGETS)[number];

const convertOptions = {
  to: { type: 'string' },
  from: { type: 'string' },
  prefix: { type: 'string' },
} as const satisfies Options;

export type ConvertValues = OptionValues<typeof convertOptions>;

/** `idforge convert <id...>`. */
export const convertCli: Command<typeof convertOptions> = {
  summary: ['convert <id...>', 'convert between forms: v1/v6, MySQL swapped bytes, ULID/UUID, hex'],
  help: convertHelp,
  options: convertOptions,
  run: convertCommand,
};

function swapHexToUuid(text: string): string {
  if (!/^[0-9a-fA-F]{32}$/.test(text)) {
    throw new InvalidIdError('mysql-swap', 'format', 'expected 32 hex digits (16 bytes)', text);
  }
  return fromMysqlSwap(Uint8Array.from(Buffer.from(text, 'hex')));
}

function convertOne(input: string, to: Target, values: ConvertValues): string {
  const from = values.from;
  switch (to) {
    case 'v6':
      return v1ToV6(input);
    case 'v1':
      return v6ToV1(input);
    case 'mysql-swap':
      return Buffer.from(toMysqlSwap(input)).toString('hex');
    case 'uuid':
      if (from === 'mysql-swap') return swapHexToUuid(input);
      return input.includes('_') ? typeIdToUuid(input) : ulidToUuid(input);
    case 'ulid':
      return uuidToUlid(input);
    case 'typeid':
      return uuidToTypeId(input, values.prefix ?? '');
    default: {
      if (input.includes('_')) return formatId('hex', parseTypeId(input).bytes);
      if (/^[0-9]+$/.test(input)) return formatId('hex', parseSnowflake(input));
      if (input.length === 26) return formatId('hex', parseUlid(input));
      if (input.length === 27) return formatId('hex', parseKsuid(input));
      return inspect(input, { scheme: 'uuid' }).hex;
    }
  }
}

/** `idforge convert <id...> --to <form>`: returns the exit code. */
export async function convertCommand(
  positionals: string[],
  values: ConvertValues,
  io: CliIo,
): Promise<number> {
  const to = values.to as Target | undefined;
  if (to === undefined || !TARGETS.includes(to)) {
    throw new UsageError(
      `--to: expected one of ${TARGETS.join(', ')}, got ${to === undefined ? 'nothing' : `"${to}"`}`,
    );
  }
  if (values.from !== undefined && !(values.from === 'mysql-swap' && to === 'uuid')) {
    throw new UsageError('--from accepts only mysql-swap, with --to uuid');
  }
  if (values.prefix !== undefined) {
    if (to !== 'typeid') throw new UsageError('--prefix applies to --to typeid only');
    if (!isTypeIdPrefix(values.prefix)) {
      throw new UsageError(
        `--prefix: expected at most 63 of a-z and _, first and last a letter, got "${values.prefix}"`,
      );
    }
  }
  const inputs = await collectInputs(positionals, io);
  const out = new LineWriter(io.stdout);
  let failed = 0;
  for (const input of inputs) {
    try {
      out.line(convertOne(input, to, values));
    } catch (e) {
      if (!(e instanceof IdforgeError)) throw e;
      out.flush();
      io.stderr.write(`idforge convert: ${excerpt(input)}: ${e.message}\n`);
      failed++;
    }
  }
  out.flush();
  return failed > 0 ? 1 : 0;
}
