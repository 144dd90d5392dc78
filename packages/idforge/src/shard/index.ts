/**
 * idforge/shard: salted shard keys for range-partitioned stores (HBase, Bigtable, range-sharded
 * DynamoDB or CockroachDB indexes, PostgreSQL range partitions). Browser-safe, like the core: it
 * imports only the core and its own files, no `node:` module, no timer. Every export is listed
 * by name. See docs/sharding.md for when to salt (and when never to).
 */
export {
  type BucketRange,
  bucketRanges,
  DEFAULT_SHARD_KEY,
  MAX_SHARD_BUCKETS,
  type SaltedKey,
  type ShardId,
  type ShardKeyOptions,
  saltedKey,
  shardKey,
} from './shard-key.js';
export { siphash24 } from './siphash.js';
