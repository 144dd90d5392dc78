/**
 * The ULID's descriptor: 26 Crockford base32 characters, 48 bits of unix ms and 80 random.
 * The service's are monotonic, so the IDs of one answer sort in the order they are given,
 * like its UUIDv7s; `idforge gen` is monotonic with `--monotonic`.
 */
import { bytesToHex } from '../encoding/hex.js';
import { formatUlid, isUlid, parseUlid, UlidGenerator, ulidTimestamp } from '../ulid.js';
import type {
  Decoded,
  DecodeOptions,
  GenFlags,
  GenSource,
  SchemeDescriptor,
} from './descriptor.js';

function inspectUlid(input: string, _hint: string, options: DecodeOptions): Decoded {
  const bytes = parseUlid(input, { lenient: options.lenient === true });
  const unixMs = ulidTimestamp(bytes);
  const timestamp = new Date(unixMs).toISOString();
  const value = formatUlid(bytes);
  return { input, scheme: 'ulid', value, hex: bytesToHex(bytes), unixMs, timestamp };
}

function ulidSource(flags: GenFlags): GenSource {
  const gen = new UlidGenerator({ monotonic: flags.monotonic === true });
  return { text: () => gen.next(), bytes: () => gen.nextBytes() };
}

export const ulidScheme = {
  name: 'ulid',
  title: 'ULID',
  service: {
    valid: (id: string) => isUlid(id),
    generator: (clock) => new UlidGenerator({ clock, monotonic: true }),
  },
  inspect: {
    family: 'ulid',
    hints: ['ulid'],
    shape: 'a ULID (26)',
    detect: (text: string) => text.length === 26,
    decode: inspectUlid,
  },
  gen: {
    help: 'ULID (add --monotonic for strictly increasing within a millisecond)',
    flags: [{ name: 'monotonic', help: 'increment the randomness within a millisecond' }],
    source: ulidSource,
  },
  // Monotonic, as the service makes them: the keys of one load are in generation order.
  bench: [{ name: 'ulid', kind: 'bytes16', keys: () => ulidSource({ monotonic: true }).bytes }],
} as const satisfies SchemeDescriptor;
