/**
 * Opaque public IDs (idforge/public PublicIds) against hashids and sqids, the packages people
 * reach for to hide numeric IDs. Inputs are a sequence of 4,096 consecutive 64-bit IDs below
 * 2^53 (sqids takes only safe integers), cycled; decode cases cycle through the encodings
 * made once here. Every case returns what a caller gets (a string, a bigint, a number array).
 * The issue's goal is absolute: encode and decode each ≥ 1,000,000 per second on one core,
 * i.e. ≤ 1,000 ns per call; the summary's note says so (the ratio column is vs the peers).
 *
 * Not like for like: hashids and sqids are encodings with a shuffled alphabet (hashids' salt
 * is recoverable from a few known pairs; sqids says it is not encryption), while PublicIds
 * runs AES (and, for 128-bit IDs, a second AES for the tag) and checks every decode.
 */
import Hashids from 'hashids';
import Sqids from 'sqids';
import { seededRandom } from '../../packages/idforge/src/core/random.js';
import { generatePublicKey } from '../../packages/idforge/src/public/keys.js';
import { PublicIds } from '../../packages/idforge/src/public/opaque.js';
import type { Comparison, SpeedGroup } from './speed.js';

const N = 4096;
const ENCODE = 'idforge PublicIds.encode (64-bit, prefix)';
const DECODE = 'idforge PublicIds.decode64 (prefix)';
const ENC_PEERS = ['hashids encode', 'sqids encode'] as const;
const DEC_PEERS = ['hashids decode', 'sqids decode'] as const;

/** The two public-ID groups (encode, decode), keys and inputs built once, here. */
export function publicIdGroups(): SpeedGroup[] {
  const ids = new PublicIds({ keys: [generatePublicKey(1, seededRandom(7))] });
  const hashids = new Hashids('a salt that is not a key', 11);
  const sqids = new Sqids({ minLength: 11 });
  const base = 1_700_000_000_000;
  const numbers = Array.from({ length: N }, (_, i) => base + i);
  const bigints = numbers.map((n) => BigInt(n));
  const uuids = Array.from({ length: N }, (_, i) => {
    const u = new Uint8Array(16);
    new DataView(u.buffer).setBigUint64(0, (BigInt(base + i) << 16n) | 0x7000n);
    u[8] = 0x80 | (i & 0x3f);
    return u;
  });
  const pub64 = bigints.map((b) => ids.encode(b, 'inv'));
  const pub128 = uuids.map((u) => ids.encode(u, 'inv'));
  const hashed = numbers.map((n) => hashids.encode(n));
  const squid = numbers.map((n) => sqids.encode([n]));
  let e = 0;
  let d = 0;
  const next = () => (e = (e + 1) & (N - 1));
  const nextD = () => (d = (d + 1) & (N - 1));
  return [
    {
      title: 'Public ID encode',
      cases: [
        { name: ENCODE, fn: () => ids.encode(bigints[next()]!, 'inv') },
        {
          name: 'idforge PublicIds.encode (128-bit UUID, prefix)',
          fn: () => ids.encode(uuids[next()]!, 'inv'),
        },
        { name: ENC_PEERS[0], fn: () => hashids.encode(numbers[next()]!) },
        { name: ENC_PEERS[1], fn: () => sqids.encode([numbers[next()]!]) },
      ],
    },
    {
      title: 'Public ID decode',
      cases: [
        { name: DECODE, fn: () => ids.decode64(pub64[nextD()]!, 'inv') },
        {
          name: 'idforge PublicIds.decode128 (prefix)',
          fn: () => ids.decode128(pub128[nextD()]!, 'inv'),
        },
        { name: DEC_PEERS[0], fn: () => hashids.decode(hashed[nextD()]!) },
        { name: DEC_PEERS[1], fn: () => sqids.decode(squid[nextD()]!) },
      ],
    },
  ];
}

/** Summary rows: the goal is ≤ 1,000 ns per call (1 M/s), beside the peers. */
export const publicIdComparisons: readonly Comparison[] = [
  {
    scheme: 'Public ID encode',
    idforge: ENCODE,
    peers: ENC_PEERS,
    note: 'goal ≤ 1,000 ns (1 M/s); AES vs shuffles',
  },
  {
    scheme: 'Public ID decode',
    idforge: DECODE,
    peers: DEC_PEERS,
    note: 'goal ≤ 1,000 ns (1 M/s); checked decode',
  },
];
