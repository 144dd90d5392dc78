/**
 * Shard keys (idforge/shard) against the npm SipHash-2-4 implementations:
 * - siphash 1.2 (BSD-2-Clause, jedisct1's siphash-js): `hash(key, message)`, the key as four
 *   little-endian 32-bit words, the result as `{ h, l }` 32-bit halves;
 * - siphash24 1.3 (MIT): `siphash24(message, key, out)`, WebAssembly when the runtime has it
 *   (Node.js does), the result as the 8 output bytes, written into a reused `out`.
 * Each peer gets its fastest documented use: key words or key bytes prepared once, an output
 * buffer reused. idforge's `siphash24` returns the 64-bit value as a bigint.
 *
 * Inputs are 4,096 Snowflake-shaped 64-bit IDs, cycled; SipHash hashes their 8 big-endian
 * bytes (prepared once). The shard key cases take the bigint ID and return its bucket of 16:
 * idforge's `shardKey(id, { buckets: 16 })`, and for each peer what a caller would write to
 * get the same bucket: the ID's 8 big-endian bytes into a reused buffer, the peer's hash
 * under the same key (DEFAULT_SHARD_KEY), then floor(h × 16 / 2^64) as idforge reduces it.
 *
 * {@link checkSipHashPeers} runs before timing: both peers must return idforge's 64-bit
 * value for every input (and for messages of 0 to 63 bytes under the reference key 00..0f),
 * and the peers' shard keys idforge's bucket for every ID.
 */
import { createRequire } from 'node:module';
import { DEFAULT_SHARD_KEY, shardKey } from '../../packages/idforge/src/shard/shard-key.js';
import { siphash24 } from '../../packages/idforge/src/shard/siphash.js';
import type { Comparison, SpeedGroup } from './speed.js';

/** siphash 1.2 (no type declarations): jedisct1's siphash-js. */
interface JedisctSipHash {
  /** `key`: 4 words, k0 low, k0 high, k1 low, k1 high (little-endian words of the key). */
  hash(key: Uint32Array, message: Uint8Array): { h: number; l: number };
}
/** siphash24 1.3 (no type declarations). */
type SipHash24 = ((message: Uint8Array, key: Uint8Array, out?: Uint8Array) => Uint8Array) & {
  readonly WASM_LOADED: boolean;
};
const require = createRequire(import.meta.url);
const jedisct = require('siphash') as JedisctSipHash;
const wasmSiphash = require('siphash24') as SipHash24;

const N = 4096;
const BUCKETS = 16;
const TWO32 = 2 ** 32;
const HASH = 'idforge siphash24 (8-byte input)';
const HASH_PEERS = ['siphash hash (8-byte input)', 'siphash24 (8-byte input)'] as const;
const SHARD = 'idforge shardKey(id, { buckets: 16 })';
const SHARD_PEERS = ['siphash + bucket (bigint id)', 'siphash24 + bucket (bigint id)'] as const;

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from({ length: hex.length / 2 }, (_, i) =>
    Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16),
  );
}

/** siphash's key form: the 16 bytes as four little-endian 32-bit words. */
function jedisctKey(key: Uint8Array): Uint32Array {
  const dv = new DataView(key.buffer, key.byteOffset, 16);
  return Uint32Array.from({ length: 4 }, (_, i) => dv.getUint32(4 * i, true));
}

/** floor(h × buckets / 2^64) from h's 32-bit halves, exactly as idforge's shardKey. */
function bucketOf(hi: number, lo: number, buckets: number): number {
  return Math.floor((hi * buckets + Math.floor((lo * buckets) / TWO32)) / TWO32);
}

/** The inputs: Snowflake-shaped IDs (time since 2025 above 22 bits) and their BE bytes. */
function inputs(): { ids: bigint[]; bytes: Uint8Array[] } {
  const tick = BigInt(1_700_000_000_000 - Date.UTC(2025, 0, 1) + 86_400_000 * 700);
  const ids = Array.from({ length: N }, (_, i) => (tick << 22n) | BigInt((i * 2654435761) >>> 10));
  const bytes = ids.map((id) => {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, id, false);
    return b;
  });
  return { ids, bytes };
}

/** The shard-key functions a peer's caller writes: bigint ID in, bucket out. */
function peerShardKeys(key: Uint8Array): Array<(id: bigint) => number> {
  const words = jedisctKey(key);
  const buf = new Uint8Array(8);
  const view = new DataView(buf.buffer);
  const out = new Uint8Array(8);
  const outView = new DataView(out.buffer);
  return [
    (id) => {
      view.setBigUint64(0, id, false);
      const h = jedisct.hash(words, buf);
      return bucketOf(h.h >>> 0, h.l >>> 0, BUCKETS);
    },
    (id) => {
      view.setBigUint64(0, id, false);
      wasmSiphash(buf, key, out);
      return bucketOf(outView.getUint32(4, true), outView.getUint32(0, true), BUCKETS);
    },
  ];
}

/**
 * Checks that both peers compute idforge's SipHash-2-4 and its buckets; throws, failing the
 * run, on the first difference.
 */
export function checkSipHashPeers(): void {
  const out = new Uint8Array(8);
  const agree = (key: Uint8Array, message: Uint8Array): void => {
    const ours = siphash24(key, message);
    const j = jedisct.hash(jedisctKey(key), message);
    const a = (BigInt(j.h >>> 0) << 32n) | BigInt(j.l >>> 0);
    wasmSiphash(message, key, out);
    const b = new DataView(out.buffer).getBigUint64(0, true);
    if (a !== ours || b !== ours) {
      const hex = (n: bigint) => n.toString(16).padStart(16, '0');
      throw new Error(
        `SipHash peers disagree on ${message.length} bytes: idforge ${hex(ours)}, siphash ${hex(a)}, siphash24 ${hex(b)}`,
      );
    }
  };
  const reference = Uint8Array.from({ length: 16 }, (_, i) => i);
  for (let len = 0; len < 64; len++) {
    agree(
      reference,
      Uint8Array.from({ length: len }, (_, i) => i),
    );
  }
  const key = hexBytes(DEFAULT_SHARD_KEY);
  const { ids, bytes } = inputs();
  for (const b of bytes) agree(key, b);
  const peers = peerShardKeys(key);
  for (const id of ids) {
    const ours = shardKey(id, { buckets: BUCKETS });
    if (peers.some((f) => f(id) !== ours)) throw new Error(`peer shard key differs for ${id}`);
  }
  if (!wasmSiphash.WASM_LOADED) throw new Error('siphash24 did not load its WebAssembly');
}

/** The two shard groups (SipHash, shard key), after {@link checkSipHashPeers}. */
export function shardGroups(): SpeedGroup[] {
  checkSipHashPeers();
  const { ids, bytes } = inputs();
  const key = hexBytes(DEFAULT_SHARD_KEY);
  const words = jedisctKey(key);
  const out = new Uint8Array(8);
  const [jedisctShard, wasmShard] = peerShardKeys(key);
  let i = 0;
  let j = 0;
  const next = () => (i = (i + 1) & (N - 1));
  const nextId = () => (j = (j + 1) & (N - 1));
  return [
    {
      title: 'SipHash-2-4, 8-byte input',
      cases: [
        { name: HASH, fn: () => siphash24(key, bytes[next()]!) },
        { name: HASH_PEERS[0], fn: () => jedisct.hash(words, bytes[next()]!) },
        { name: HASH_PEERS[1], fn: () => wasmSiphash(bytes[next()]!, key, out) },
      ],
    },
    {
      title: 'Shard key, bigint ID, 16 buckets',
      cases: [
        { name: SHARD, fn: () => shardKey(ids[nextId()]!, { buckets: BUCKETS }) },
        { name: SHARD_PEERS[0], fn: () => jedisctShard!(ids[nextId()]!) },
        { name: SHARD_PEERS[1], fn: () => wasmShard!(ids[nextId()]!) },
      ],
    },
  ];
}

/** Summary rows; no goal was set for these. */
export const shardComparisons: readonly Comparison[] = [
  {
    scheme: 'SipHash-2-4 (8 bytes)',
    idforge: HASH,
    peers: HASH_PEERS,
    note: 'bigint vs { h, l } / bytes',
  },
  {
    scheme: 'Shard key (16 buckets)',
    idforge: SHARD,
    peers: SHARD_PEERS,
    note: 'peers: hash + the same reduction',
  },
];
