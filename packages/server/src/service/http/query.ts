/**
 * Integer query parameters in decimal digits only, as docs/service.md says. Ajv's type
 * coercion (which the querystring needs: every value arrives as a string) reads `0x10`, `1e3`,
 * `0b11`, `+7`, `5.0` and ` 5` as numbers; a hook before validation refuses them, naming the
 * parameter, and leaves the range to the schema.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, shown } from './errors.js';

type Hook = (req: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

const DIGITS = /^[0-9]+$/;

/** The names of the integer properties of a querystring schema. */
function integerParams(schema: unknown): string[] {
  const props = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)
    ?.properties;
  if (props === undefined) return [];
  return Object.entries(props)
    .filter(([, p]) => p.type === 'integer')
    .map(([name]) => name);
}

/**
 * A preValidation hook refusing a non-decimal value of any integer parameter of `querystring`
 * (400 IDF_BAD_REQUEST naming it), or null when the schema has none.
 */
export function decimalIntegers(querystring: unknown): Hook | null {
  const names = integerParams(querystring);
  if (names.length === 0) return null;
  return (req, _reply, done) => {
    const q = req.query as Record<string, unknown>;
    for (const name of names) {
      const v = q[name];
      // Repeated parameters arrive as an array, which the schema refuses.
      if (typeof v === 'string' && !DIGITS.test(v)) {
        return done(badRequest(`querystring/${name} must be decimal digits, got ${shown(v)}`));
      }
    }
    done();
  };
}
