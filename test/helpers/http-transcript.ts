// What a server wrote on one raw connection, split into its answers and normalised so that two
// servers' transcripts compare: the parts that differ by design (the date, the IDs minted, the
// seconds left in a rate-limit window, the HLC stamp) are masked, everything else is kept.
import assert from 'node:assert/strict';
import { connect } from 'node:net';

/** An ID of any scheme the routes hand out (as test/service/fast-lane.test.ts masks them). */
const ID =
  /\b(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9A-HJKMNP-TV-Z]{26}|[0-9A-Za-z]{27}|[0-9]{6,20})\b/g;

/** One answer, normalised. */
export interface Said {
  readonly status: string;
  readonly headers: readonly string[];
  readonly body: string;
}

/** A connection's transcript: its answers, then what was left (bytes that are no answer). */
export interface Transcript {
  readonly answers: readonly Said[];
  readonly rest: string;
}

/**
 * Writes each of `chunks` on a fresh connection (one write each, so a request may arrive in
 * parts), half-closes it, and resolves with everything the server wrote once it closed.
 */
export function converse(port: number, chunks: readonly Buffer[]): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let got = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      got += d;
    });
    // A reset is how a server may end a connection it refused: what it wrote is the record.
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(got));
    socket.on('connect', () => {
      for (const c of chunks) socket.write(c);
      socket.end();
    });
  });
}

function headerPairs(head: readonly string[]): [string, string][] {
  return head.map((f) => {
    const i = f.indexOf(':');
    return [f.slice(0, i).trim().toLowerCase(), f.slice(i + 1).trim()];
  });
}

/** A header's value as compared: masked where two servers differ by design. */
function masked(name: string, value: string, bodyLength: number): string {
  if (name === 'content-length') {
    assert.equal(Number(value), bodyLength, 'content-length is the body’s');
    return '<n>';
  }
  if (name === 'x-ratelimit-reset' || name === 'retry-after') {
    assert.match(value, /^[0-9]+$/, name);
    return '<s>';
  }
  if (name === 'idforge-hlc') return '<hlc>';
  return value;
}

/** A body with what two apps mint differently masked: IDs, and sequence numbers (quoted or alone). */
function maskBody(body: string): string {
  if (/^[0-9]+$/.test(body)) return '<n>'; // a Leaf segment number: two apps draw two
  return body
    .replace(ID, '<id>')
    .replace(/"[0-9]+"/g, '"<n>"')
    .replace(/^[0-9]+$/gm, '<n>')
    .replace(/retry in [0-9]+ s\b/g, 'retry in <s> s');
}

/**
 * Splits what a server wrote into its answers. `methods[i]` is the i-th request's method (a
 * HEAD's answer has no body whatever its content-length).
 */
export function transcript(raw: string, methods: readonly string[]): Transcript {
  const answers: Said[] = [];
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end < 0 || !raw.startsWith('HTTP/', at)) break;
    const [status, ...fields] = raw.slice(at, end).split('\r\n');
    const pairs = headerPairs(fields);
    const length = pairs.find(([k]) => k === 'content-length')?.[1];
    const head = methods[answers.length] === 'HEAD';
    const n = head || length === undefined ? 0 : Number(length);
    const body = raw.slice(end + 4, end + 4 + n);
    at = end + 4 + n;
    const headers = pairs
      .filter(([k]) => k !== 'date')
      .map(
        ([k, v]) =>
          `${k}: ${masked(k, v, head ? Number(length) : Buffer.byteLength(body, 'latin1'))}`,
      );
    answers.push({ status: status as string, headers, body: maskBody(body) });
  }
  return { answers, rest: raw.slice(at) };
}
