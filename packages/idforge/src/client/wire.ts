/**
 * The service's answers, checked before anything of them is handed out: IDs are strings of
 * the scheme asked for (64-bit ones in decimal), as many as asked, none repeated; sequence
 * numbers are decimal strings in 0 .. 2^63 - 1. A body that breaks this is refused whole
 * (`fail` throws `ServiceResponseError`). Also: the words of error answers and network errors.
 */
import { isKsuid, isSnowflake, isUlid, isUuid } from '../core/index.js';
import {
  type IdBatchBody,
  MAX_SEQUENCE_VALUE,
  type NumberRange,
  type SegmentBody,
  type ServiceErrorBody,
} from '../wire/index.js';
import type { IdScheme } from './options.js';

/** A block of sequence numbers [first, last], owned by this client alone: the wire's range. */
export type Segment = NumberRange;

type Fail = (reason: string) => never;

/** A body of the wire contract's shape `T` as received: every field still to be checked. */
type Unchecked<T> = { readonly [K in keyof T]?: unknown };

/** Whether a string is an ID of each scheme, as the service formats it. */
const VALID: Readonly<Record<IdScheme, (id: string) => boolean>> = {
  uuidv4: (id) => isUuid(id, 4),
  uuidv7: (id) => isUuid(id, 7),
  ulid: (id) => isUlid(id),
  ksuid: (id) => isKsuid(id),
  snowflake: (id) => isSnowflake(id),
  // HLC IDs (idforge/hlc) are 63-bit integers in decimal, like Snowflakes.
  hlc: (id) => isSnowflake(id),
};

const DECIMAL = /^(0|[1-9][0-9]{0,18})$/;

/** `{"ids":[...]}` with exactly `count` distinct IDs of `scheme`. */
export function idsParser(scheme: IdScheme, count: number) {
  const valid = VALID[scheme];
  return (body: unknown, fail: Fail): string[] => {
    const ids = idsOf(body, count, fail);
    const seen = new Set<string>();
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (typeof id !== 'string' || !valid(id)) {
        fail(`ids[${i}] is not a ${scheme} ID (${show(id)})`);
      }
      if (seen.has(id as string)) fail(`ids[${i}] repeats an earlier ID (${id})`);
      seen.add(id as string);
    }
    return ids as string[];
  };
}

/**
 * `{"tag":tag,"first":"N","last":"M"}` with `after` < first <= last <= 2^63 - 1: a segment
 * must lie above every one this client received for the tag (else two servers use different
 * stores, or the store was reset, and numbers would repeat).
 */
export function segmentParser(tag: string, after: bigint) {
  return (body: unknown, fail: Fail): Segment => {
    if (typeof body !== 'object' || body === null) fail(`the body is ${show(body)}, not an object`);
    const b = body as Unchecked<SegmentBody>;
    if (b.tag !== tag) fail(`"tag" is ${show(b.tag)}, not "${tag}"`);
    const first = decimal(b.first, '"first"', fail);
    const last = decimal(b.last, '"last"', fail);
    if (first > last) fail(`"first" ${first} is above "last" ${last}`);
    if (first <= after) {
      fail(
        `segment [${first}, ${last}] is not above ${after}, the last number of a segment ` +
          'received before: servers on different stores, or a store reset',
      );
    }
    return { first, last };
  };
}

function idsOf(body: unknown, count: number, fail: Fail): unknown[] {
  const ids = (body as Unchecked<IdBatchBody> | null)?.ids;
  if (!Array.isArray(ids)) fail(`"ids" is ${show(ids)}, not an array`);
  const list = ids as unknown[];
  if (list.length !== count) fail(`${list.length} IDs where ${count} were asked for`);
  return list;
}

function decimal(value: unknown, name: string, fail: Fail): bigint {
  if (typeof value !== 'string' || !DECIMAL.test(value)) {
    fail(`${name} is ${show(value)}, not a decimal string`);
  }
  const n = BigInt(value as string);
  if (n > MAX_SEQUENCE_VALUE) fail(`${name} ${n} is above 2^63 - 1`);
  return n;
}

function show(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The words of a network error: fetch's own ("fetch failed") hides them in its cause. */
export function networkReason(e: unknown): string {
  let inner = e instanceof Error && e.cause instanceof Error ? e.cause : e;
  if (inner instanceof AggregateError && inner.message === '' && inner.errors[0] instanceof Error) {
    inner = inner.errors[0];
  }
  if (!(inner instanceof Error)) return String(inner);
  const code = (inner as { code?: unknown }).code;
  if (typeof code === 'string' && !inner.message.includes(code)) {
    return inner.message === '' ? code : `${inner.message} (${code})`;
  }
  return inner.message === '' ? inner.name : inner.message;
}

/** `{"error":{"code","message"}}`, or the start of whatever else the body was. */
export function errorBody(text: string): { code: string | undefined; message: string } {
  try {
    const body = JSON.parse(text) as { error?: Unchecked<ServiceErrorBody['error']> } | null;
    const code = body?.error?.code;
    const message = body?.error?.message;
    if (typeof code === 'string' && typeof message === 'string') {
      return { code: clip(code, 64), message: clip(message, 500) };
    }
  } catch {
    // not JSON: described below
  }
  return { code: undefined, message: `not an idforge error body (${snippet(text)})` };
}

/** Retry-After in ms: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined otherwise. */
export function retryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** A short, printable excerpt of a body for an error message. */
export function snippet(text: string): string {
  if (text === '') return 'empty';
  return JSON.stringify(clip(text, 80));
}

function clip(text: string, max: number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return clean.length > max ? `${clean.slice(0, max - 3)}...` : clean;
}
