// The lines a child process writes: what the test fixtures and `idforge serve` report on.
import type { Readable } from 'node:stream';

/**
 * Calls `handle` with each complete line `stream` emits (read as UTF-8, without its '\n'), in
 * order, as it arrives; a last line without '\n' is never handled.
 */
export function eachLine(stream: Readable, handle: (line: string) => void): void {
  let buf = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => {
    buf += chunk;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      handle(line);
    }
  });
}
