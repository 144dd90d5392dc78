/**
 * The service's formatted tags (business numbers, idforge/sequences' FormattedSequence): a tag
 * whose stored record holds a format (`idforge seq create --format`) answers formatted numbers
 * of the current period; the format is read from the store once per tag, so every node that
 * shares the store formats alike. Held by the SequenceRegistry (sequences.ts).
 */
import { FormattedSequence, formatOfDescription, type SequenceSource } from 'idforge/sequences';

type Within = <T>(p: Promise<T>, what: string) => Promise<T>;
type Report = (tag: string, seconds: number, error: unknown) => void;

export class FormattedTags {
  /** Per tag read: its formatted sequence, or null for a plain tag. */
  readonly #formats = new Map<string, FormattedSequence | null>();
  readonly #within: Within;
  readonly #report: Report;
  readonly #waitMs: number;

  constructor(within: Within, report: Report, waitMs: number) {
    this.#within = within;
    this.#report = report;
    this.#waitMs = waitMs;
  }

  /**
   * The formatted sequence of `tag` when its stored record holds a format, else null (plain
   * tags, counters, a tag that does not exist: the plain path then answers for it). A tag's
   * record is read once, within the registry's wait.
   */
  async of(source: SequenceSource, tag: string): Promise<FormattedSequence | null> {
    const known = this.#formats.get(tag);
    if (known !== undefined) return known;
    if (source.segments === null) return null;
    const record = await this.#within(source.segments.getTag(tag), `reading the tag "${tag}"`);
    if (record === null) return null;
    const format = formatOfDescription(record.description);
    const seq =
      format === null
        ? null
        : new FormattedSequence(source, tag, format, {
            fetchTimeoutMs: this.#waitMs,
            onFetch: (e) => this.#report(tag, e.ms / 1000, e.error),
          });
    this.#formats.set(tag, seq);
    return seq;
  }

  /** Stops every formatted sequence's buffer. */
  close(): void {
    for (const f of this.#formats.values()) f?.close();
    this.#formats.clear();
  }
}
