/**
 * The answer of every route that hands out IDs or sequence numbers (the wire's IdBatchBody),
 * and the hot routes' answers, which their routes and the fast lane both send: what each
 * counts and which headers it adds, defined once.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HLC_HEADER } from 'idforge/wire';
import type { RouteDeps } from '../deps.js';
import type { Scheme } from './schemas.js';

/**
 * The answer body: `{"ids":[...]}`, or one per line with `Accept: text/plain`. IDs never need
 * JSON escaping (hex, Crockford base32, base62, decimal), so the array is joined rather than
 * serialized element by element.
 * REF: bench/service (count=1000): join is several times faster than a schema serializer here.
 */
export function sendIds(req: FastifyRequest, reply: FastifyReply, ids: readonly string[]): string {
  const text = wantsText(req.headers.accept);
  reply.type(text ? TEXT : JSON_TYPE);
  return idsBody(text, ids);
}

export const TEXT = 'text/plain; charset=utf-8';
export const JSON_TYPE = 'application/json; charset=utf-8';

/** The body of {@link sendIds}: one ID per line when `text`, else the JSON IdBatchBody. */
export function idsBody(text: boolean, ids: readonly string[]): string {
  if (ids.length === 1) return text ? `${ids[0]}\n` : `{"ids":["${ids[0]}"]}`;
  if (text) return ids.length === 0 ? '' : `${ids.join('\n')}\n`;
  return ids.length === 0 ? '{"ids":[]}' : `{"ids":["${ids.join('","')}"]}`;
}

/**
 * A formatted sequence's numbers: `{"ids":[...],"formatted":[...],"period":"..."}`, or the
 * formatted numbers one per line with Accept: text/plain.
 */
export function sendFormatted(
  req: FastifyRequest,
  reply: FastifyReply,
  batch: {
    readonly period: string;
    readonly values: readonly bigint[];
    readonly texts: readonly string[];
  },
): string {
  if (wantsText(req.headers.accept)) {
    reply.type(TEXT);
    return batch.texts.length === 0 ? '' : `${batch.texts.join('\n')}\n`;
  }
  reply.type(JSON_TYPE);
  const ids = batch.values.map(String);
  return JSON.stringify({ ids, formatted: batch.texts, period: batch.period });
}

/** Whether an Accept header asks for text/plain. */
export function wantsText(accept: string | undefined): boolean {
  return accept?.startsWith('text/plain') === true;
}

/** What a hot route's answer counts and reads. */
type AnswerDeps = Pick<RouteDeps, 'issued' | 'hlc' | 'metrics'>;

/**
 * GET /v1/ids/{scheme}'s answer of `ids`: counted as issued, the node's HLC stamp appended to
 * `headers` (name, value pairs), the body (its type: {@link TEXT} when `text`, else JSON).
 */
export function idsAnswer(
  deps: AnswerDeps,
  scheme: Scheme,
  ids: readonly string[],
  text: boolean,
  headers: string[],
): string {
  deps.issued.add(scheme, ids.length);
  const stamp = deps.hlc?.header();
  if (stamp != null) headers.push(HLC_HEADER, stamp);
  return idsBody(text, ids);
}

/** Leaf's GET /api/snowflake/get/{key} answer: the one ID, counted as issued ({@link TEXT}). */
export function leafIdAnswer(deps: AnswerDeps, ids: readonly string[]): string {
  deps.issued.add('snowflake', 1);
  return ids[0] as string;
}

/** Leaf's GET /api/segment/get/{key} answer: the tag's number, counted as served ({@link TEXT}). */
export function segmentAnswer(deps: AnswerDeps, tag: string, v: bigint): string {
  deps.metrics.served(tag, 1);
  return v.toString();
}

/** Sets name, value pairs on a Fastify reply (as the fast lane writes them). */
export function setHeaders(reply: FastifyReply, headers: readonly string[]): void {
  for (let i = 0; i < headers.length; i += 2) reply.header(headers[i] as string, headers[i + 1]);
}
