/**
 * Questions on a terminal: a line reader over the CLI's standard input and `ask`, which prints
 * a question with its default, reads the answer and asks again (at most three times) when the
 * answer does not parse. Used by `idforge advise` when it runs on a terminal without flags.
 */
import { type CliIo, UsageError } from './io.js';

/** Whether the stream is a terminal (Node's `isTTY`); false for pipes, files and tests. */
export function isTerminal(stream: unknown): boolean {
  return (stream as { isTTY?: unknown } | null)?.isTTY === true;
}

/**
 * Reads standard input a line at a time. Iterates the stream by hand, without `for await`,
 * whose early exit would close standard input after the first answer.
 */
export class LineReader {
  readonly #it: AsyncIterator<string | Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';
  #ended = false;

  constructor(stdin: AsyncIterable<string | Uint8Array>) {
    this.#it = stdin[Symbol.asyncIterator]();
  }

  /** The next line without its line break; null once the input has ended. */
  async line(): Promise<string | null> {
    for (;;) {
      const nl = this.#buffer.indexOf('\n');
      if (nl >= 0) {
        const line = this.#buffer.slice(0, nl).replace(/\r$/, '');
        this.#buffer = this.#buffer.slice(nl + 1);
        return line;
      }
      if (this.#ended) {
        if (this.#buffer === '') return null;
        const rest = this.#buffer;
        this.#buffer = '';
        return rest;
      }
      const { value, done } = await this.#it.next();
      if (done) {
        this.#ended = true;
        this.#buffer += this.#decoder.decode();
      } else {
        this.#buffer +=
          typeof value === 'string' ? value : this.#decoder.decode(value, { stream: true });
      }
    }
  }
}

/**
 * Prints `question [default]: ` on standard error (standard output stays the answer's) and
 * reads a line: empty takes the default; otherwise `parse` returns the value or a reason it
 * refused the text, and the question is asked again. Rejects with `UsageError` after three
 * refused answers or when the input ends.
 */
export async function ask<T>(
  io: CliIo,
  reader: LineReader,
  question: string,
  fallback: string,
  parse: (text: string) => T | { readonly refused: string },
): Promise<T> {
  for (let attempt = 0; attempt < 3; attempt++) {
    io.stderr.write(`${question} [${fallback}]: `);
    const line = await reader.line();
    if (line === null) {
      io.stderr.write('\n');
      throw new UsageError('standard input ended before every question was answered');
    }
    const value = parse(line.trim() === '' ? fallback : line.trim());
    if (typeof value !== 'object' || value === null || !('refused' in value)) return value as T;
    io.stderr.write(`  ${value.refused}\n`);
  }
  throw new UsageError(`no valid answer to "${question}" after three tries`);
}
