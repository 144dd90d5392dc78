import { IdforgeError } from '../../core/index.js';
import { MAX_SHARD_BUCKETS, saltedKey, shardKey } from '../../shard/index.js';
import { integer, type Options, type OptionValues } from '../args.js';
import type { Command } from '../host.js';
import { type CliIo, collectInputs, excerpt, LineWriter, UsageError } from '../io.js';

export const shardHelp = `Usage: idforge shard <id...> --buckets N [--key HEX] [--json]

The salt bucket of each ID for a range-partitioned store (idforge/shard, docs/sharding.md):
SipHash-2-4 of the whole ID under a 16-byte key, reduced to 0..N-1 by multiply-high. Prints
one line per ID: the bucket, the salted key (2-byte big-endian bucket then the ID's bytes, as
hex: it sorts by bucket, then ID) and the ID as given, separated by single spaces.

An ID is a 64-bit decimal (hashed as 8 big-endian bytes), a UUID (any form inspect reads), a
ULID (its 16 bytes: the same bucket as its UUID) or a KSUID (20 bytes). Use - to read IDs
from standard input (whitespace-separated). Exit code 1 if any ID is invalid (the others are
still printed), 2 for a usage mistake.

Options:
  --buckets N    the number of buckets, 1 to ${MAX_SHARD_BUCKETS} (required)
  --key HEX      the 16-byte key as 32 hex digits (default: idforge's fixed key, the bytes of
                 "idforge.shard.v1"). The key and N are part of the table's schema: changing
                 either moves rows to other buckets.
  --json         one JSON object per line: id (as given), bucket, key (the salted key's
                 hex); a failed input has input and error {code, message}

Examples:
  idforge shard 175928847299117063 --buckets 16
  idforge gen snowflake -n 5 | idforge shard - --buckets 16 --json
`;

const shardOptions = {
  buckets: { type: 'string' },
  key: { type: 'string' },
  json: { type: 'boolean' },
} as const satisfies Options;

export type ShardValues = OptionValues<typeof shardOptions>;

/** `idforge shard <id...>`. */
export const shardCli: Command<typeof shardOptions> = {
  summary: [
    'shard <id...>',
    'salt bucket and composite key for range-partitioned stores (--buckets N)',
  ],
  help: shardHelp,
  options: shardOptions,
  run: shardCommand,
};

/** `idforge shard <id...>`: returns the exit code. */
export async function shardCommand(
  positionals: string[],
  values: ShardValues,
  io: CliIo,
): Promise<number> {
  if (values.buckets === undefined) {
    throw new UsageError(`expected --buckets N (1 to ${MAX_SHARD_BUCKETS})`);
  }
  const buckets = integer('--buckets', values.buckets, 1, MAX_SHARD_BUCKETS);
  const key = values.key;
  if (key !== undefined && !/^[0-9a-fA-F]{32}$/.test(key)) {
    throw new UsageError(`--key: expected 32 hex digits (16 bytes), got "${excerpt(key, 40)}"`);
  }
  const options = key === undefined ? { buckets } : { buckets, key };
  shardKey(0n, options); // any other mistake in the options is a usage error, before reading
  const inputs = await collectInputs(positionals, io);
  const out = new LineWriter(io.stdout);
  let failed = 0;
  for (const input of inputs) {
    try {
      const s = saltedKey(input, options);
      out.line(
        values.json
          ? JSON.stringify({ id: input, bucket: s.bucket, key: s.hex })
          : `${s.bucket} ${s.hex} ${input}`,
      );
    } catch (e) {
      if (!(e instanceof IdforgeError)) throw e;
      failed++;
      if (values.json) {
        out.line(
          JSON.stringify({ input: excerpt(input), error: { code: e.code, message: e.message } }),
        );
      }
      out.flush();
      io.stderr.write(`idforge shard: ${excerpt(input)}: ${e.message} [${e.code}]\n`);
    }
  }
  out.flush();
  return failed > 0 ? 1 : 0;
}
