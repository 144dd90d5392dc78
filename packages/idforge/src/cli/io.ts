/** What a CLI command may touch: its output streams and standard input. */
export interface CliIo {
  /** Standard output; `isTTY` true: a person reads it (`serve` prints its start in words). */
  readonly stdout: { write(chunk: string): unknown; readonly isTTY?: boolean };
  /** Standard error; `isTTY` true draws progress in place (a terminal), else in lines. */
  readonly stderr: { write(chunk: string): unknown; readonly isTTY?: boolean };
  /** Standard input, read only when an argument is `-`. */
  readonly stdin: AsyncIterable<string | Uint8Array>;
  /**
   * The environment the command line reads (`IDFORGE_STORE`, `IDFORGE_TICKET_SERVERS`): the
   * binary passes its process environment; absent, none is set. Commands never read it themselves.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Subscribes to SIGTERM and SIGINT (the long-running `serve`): the binary passes one; absent,
   * a service runs until its abort signal. The listener gets the signal's name, or
   * 'parent-exit' when npm, which started `serve`, ended (idforge/bin's watchParent). Returns
   * the unsubscribe function.
   */
  readonly onSignal?: (listener: (signal: string) => void) => () => void;
}

/**
 * At most `max` characters of an input for an error message (a 10 MB line is not echoed
 * whole): the input itself when short enough, else its start, "…" and its length.
 */
export function excerpt(input: string, max = 100): string {
  if (input.length <= max) return input;
  const head = Array.from(input.slice(0, max))
    .slice(0, max - 1)
    .join('');
  return `${head}… (${input.length} characters)`;
}

/** A mistake in the command line: printed with a pointer to `--help`, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Buffers lines and writes them in chunks, so a million IDs are not a million writes. */
export class LineWriter {
  readonly #out: CliIo['stdout'];
  #buf: string[] = [];

  constructor(out: CliIo['stdout']) {
    this.#out = out;
  }

  line(text: string): void {
    this.#buf.push(text);
    if (this.#buf.length >= 4096) this.flush();
  }

  flush(): void {
    if (this.#buf.length === 0) return;
    this.#out.write(`${this.#buf.join('\n')}\n`);
    this.#buf = [];
  }
}

/**
 * Expands the positional arguments: `-` is replaced by the whitespace-separated words of
 * standard input. Throws {@link UsageError} when nothing is left.
 */
export async function collectInputs(args: readonly string[], io: CliIo): Promise<string[]> {
  const out: string[] = [];
  for (const a of args) {
    if (a !== '-') {
      out.push(a);
      continue;
    }
    let text = '';
    const decoder = new TextDecoder();
    for await (const chunk of io.stdin) {
      text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    }
    text += decoder.decode();
    for (const word of text.split(/\s+/)) if (word !== '') out.push(word);
  }
  if (out.length === 0)
    throw new UsageError('expected at least one ID (or - to read standard input)');
  return out;
}

/**
 * Columns padded to their widest cell, two spaces apart, trailing spaces trimmed: the table
 * of `layouts`, `leases` and `seq show`.
 */
export function formatTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [head, ...rows]
    .map((cells) =>
      cells
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A list item wrapped at `width` columns, continuation lines indented under its text. */
export function wrap(item: string, width = 96): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of item.split(/(?<=\S) /)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `    ${word}`;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}
