/**
 * Integers in a route's path and JSON body as the caller wrote them, before Ajv's type coercion
 * (on for the querystring's sake, where every value is a string) reads `0x10`, `1e3`, `+1`,
 * `1.0` and ` 1` in a path, and `"500"` in a body, as numbers: a path's integer parameter is
 * decimal digits, a body's integer field a JSON number. Anything else is a 400 naming the field,
 * before any handler or store sees the request. The range stays the schema's.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from './errors.js';

type Hook = (req: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

const DIGITS = /^[0-9]+$/;

interface Schema {
  readonly params?: unknown;
  readonly body?: unknown;
}

/** The names of the properties of an object schema whose type is or includes `integer`. */
function integerFields(schema: unknown): string[] {
  const props = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)
    ?.properties;
  if (props === undefined) return [];
  return Object.entries(props)
    .filter(
      ([, p]) => p.type === 'integer' || (Array.isArray(p.type) && p.type.includes('integer')),
    )
    .map(([name]) => name);
}

const shown = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 24 ? `${s.slice(0, 24)}…` : s;
};

/** A preValidation hook enforcing the above for `schema`'s params and body. */
export function strictIntegers(schema: Schema): Hook {
  const params = integerFields(schema.params);
  const body = integerFields(schema.body);
  return (req, _reply, done) => {
    const p = req.params as Record<string, unknown>;
    for (const name of params) {
      const v = p[name];
      if (typeof v === 'string' && !DIGITS.test(v)) {
        return done(badRequest(`params/${name} must be decimal digits, got ${shown(v)}`));
      }
    }
    const b = req.body;
    if (typeof b !== 'object' || b === null) return done();
    for (const name of body) {
      const v = (b as Record<string, unknown>)[name];
      if (v !== undefined && v !== null && typeof v !== 'number') {
        return done(badRequest(`body/${name} must be a JSON integer, got ${shown(v)}`));
      }
    }
    done();
  };
}
