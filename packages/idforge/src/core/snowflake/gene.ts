/**
 * Shard genes: the per-ID value of a layout's gene field (role 'gene', always the least
 * significant field). An ID minted with the gene of a parent ID (an order with its user's)
 * has the parent's low bits, so `shardOf(child, n) === shardOf(parent, n)` for every power of
 * two n up to 2^geneBits: the ID alone routes to its parent's shard (docs/layouts.md, "Shard
 * genes"). Internal to the snowflake folder; the public surface is the generator's `next`,
 * `nextString` and `batch` options and `shardOf(id, n)`.
 */
import { rangeError, typeError } from '../assert.js';
import { cryptoRandom, RandomPool, type RandomSource } from '../random.js';
import { anyId } from './codec.js';
import type { Layout, LayoutField } from './layout.js';

/**
 * The gene of one ID (or of every ID of one `batch`): give exactly one of the two. Without it,
 * a layout with a gene field gives each ID a random gene.
 */
export interface SnowflakeGeneOptions {
  /**
   * Take the gene from this ID's low geneBits bits: any 64-bit ID (a bigint or decimal string
   * in [0, 2^64-1], or a non-negative safe integer, e.g. a database serial), of any layout.
   */
  readonly geneFrom?: bigint | string | number;
  /** The gene itself, an integer in [0, 2^geneBits - 1]. Never masked. */
  readonly gene?: number;
}

/**
 * The genes of one generator: validates a caller's gene and draws random ones. Holds a pool
 * of random bytes; one per generator.
 */
export class GeneSource {
  readonly #layout: Layout;
  readonly #field: LayoutField | undefined;
  readonly #maskBig: bigint;
  readonly #pool: RandomPool | undefined;
  readonly #view: DataView | undefined;

  constructor(layout: Layout, random: RandomSource = cryptoRandom) {
    this.#layout = layout;
    this.#field = layout.geneField;
    this.#maskBig = layout.geneField?.maskBig ?? 0n;
    // Only a layout with a gene draws random bytes: 8 per ID from a 4 KiB pool.
    this.#pool = layout.geneField === undefined ? undefined : new RandomPool(random);
    this.#view = this.#pool === undefined ? undefined : new DataView(this.#pool.bytes.buffer);
  }

  /** A uniformly random gene (the low geneBits of 64 random bits). Gene layouts only. */
  random(): bigint {
    return this.#view!.getBigUint64(this.#pool!.take(8)) & this.#maskBig;
  }

  /**
   * The gene `options` ask for. Throws `RangeError` when the layout has no gene field or the
   * gene is out of range, `TypeError` when `options` is not an object with exactly one of
   * `gene` and `geneFrom`, {@link InvalidIdError} when `geneFrom` is not a 64-bit ID.
   */
  of(name: string, options: SnowflakeGeneOptions): bigint {
    const field = this.#field;
    if (field === undefined) {
      throw rangeError(
        name,
        `no gene on layout "${this.#layout.name}": it has no gene field (role 'gene'); ` +
          'mint with a layout that has one, e.g. "gene-8"',
        options,
      );
    }
    if (typeof options !== 'object' || options === null) {
      throw typeError(name, 'an object { geneFrom } or { gene }', options);
    }
    const { gene, geneFrom } = options;
    if ((gene === undefined) === (geneFrom === undefined)) {
      throw typeError(name, 'exactly one of gene and geneFrom', options);
    }
    if (geneFrom !== undefined) return anyId(`${name} geneFrom`, geneFrom) & this.#maskBig;
    if (typeof gene !== 'number') {
      throw typeError(`${name} gene`, `an integer in [0, ${field.mask}]`, gene);
    }
    if (!Number.isInteger(gene) || gene < 0 || gene > field.mask) {
      throw rangeError(
        `${name} gene`,
        `an integer in [0, ${field.mask}] (field "${field.name}" has ${field.bits} bits)`,
        gene,
      );
    }
    return BigInt(gene);
  }
}
