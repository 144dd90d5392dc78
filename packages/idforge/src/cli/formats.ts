/**
 * The output forms of an ID, one table for every command: text, json (one array of strings,
 * so a 64-bit ID is never a JSON number), hex and base64 (the ID's bytes, big-endian for a
 * 64-bit one). An ID reaches the table as a 64-bit `bigint`, or in the form the format wants
 * (text or bytes), so a generator makes only that form.
 */
import { Buffer } from 'node:buffer';
import { type CliIo, LineWriter, UsageError } from './io.js';

/** A 64-bit ID (a Snowflake's bigint), a text form or the bytes of one. */
export type Id = bigint | string | Uint8Array;

interface Format {
  /** What the format is made from: a generator gives that form (a bigint serves both). */
  readonly wants: 'text' | 'bytes';
  /** One ID in this format (a JSON array collects these strings). */
  line(id: Id): string;
  /** Printed as one JSON array instead of one line per ID. */
  readonly array: boolean;
}

/** The 8 big-endian bytes of a 64-bit ID. */
export function bytes64(id: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, id);
  return out;
}

function text(id: Id): string {
  if (id instanceof Uint8Array) throw new TypeError('a text format got the bytes of an ID');
  return id.toString();
}

function bytes(id: Id): Uint8Array {
  if (typeof id === 'bigint') return bytes64(id);
  if (typeof id === 'string') throw new TypeError('a byte format got the text of an ID');
  return id;
}

export const FORMATS = {
  text: { wants: 'text', line: text, array: false },
  json: { wants: 'text', line: text, array: true },
  hex: { wants: 'bytes', line: (id) => Buffer.from(bytes(id)).toString('hex'), array: false },
  base64: {
    wants: 'bytes',
    line: (id) => Buffer.from(bytes(id)).toString('base64'),
    array: false,
  },
} as const satisfies Record<string, Format>;

export type OutputFormat = keyof typeof FORMATS;

/**
 * `--format F`: one of {@link FORMATS} (default text). `json` is the switch `--json` that every
 * command with JSON output takes: `--json` alone is `--format json`, and with another format
 * it is refused.
 */
export function outputFormat(name: string | undefined, json = false): OutputFormat {
  if (json && name !== undefined && name !== 'json') {
    throw new UsageError(`--json is --format json; it cannot be given with --format ${name}`);
  }
  const f = name ?? (json ? 'json' : 'text');
  if (!Object.hasOwn(FORMATS, f)) {
    throw new UsageError(
      `--format: expected one of ${Object.keys(FORMATS).join(', ')}, got "${f}"`,
    );
  }
  return f as OutputFormat;
}

/** One ID in `format` (for a single value, e.g. `convert --to hex`). */
export function formatId(format: OutputFormat, id: Id): string {
  return FORMATS[format].line(id);
}

/** Writes IDs to standard output in one format: a line each, or one JSON array at `end()`. */
export class IdOutput {
  readonly wants: 'text' | 'bytes';
  readonly #format: Format;
  readonly #lines: LineWriter;
  readonly #out: CliIo['stdout'];
  #json: string[] = [];

  constructor(format: OutputFormat, out: CliIo['stdout']) {
    this.#format = FORMATS[format];
    this.wants = this.#format.wants;
    this.#out = out;
    this.#lines = new LineWriter(out);
  }

  add(id: Id): void {
    if (this.#format.array) this.#json.push(this.#format.line(id));
    else this.#lines.line(this.#format.line(id));
  }

  end(): void {
    if (this.#format.array) this.#out.write(`${JSON.stringify(this.#json)}\n`);
    else this.#lines.flush();
    this.#json = [];
  }
}
