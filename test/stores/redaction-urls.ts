// Store URLs with a secret in every position a driver reads one from, for the redaction tests
// of issue 8 (test/stores/redaction.test.ts).
import assert from 'node:assert/strict';
import fc from 'fast-check';

/**
 * In every generated secret, so that a leak of any part holding it (even percent-encoded or
 * lower-cased) is seen, and distinctive enough never to be found in normal output.
 */
export const MARKER = 'Qz7XwKv';

/** Characters that break naive redaction: URL delimiters, escapes, non-ASCII, whitespace. */
const AWKWARD = ['@', '/', ':', '?', '#', '%', '%zz', '%40', '&', '=', '+', ' ', '\t', '\\'];
const chunk = fc.oneof(
  fc.constantFrom(...AWKWARD, 'ä', '😀', '[', ']', ';', ','),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 3 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 2 }),
);

/** A secret of at least 8 characters: random awkward text around {@link MARKER}. */
export const secretArb: fc.Arbitrary<string> = fc
  .tuple(fc.array(chunk, { maxLength: 4 }), fc.array(chunk, { minLength: 1, maxLength: 4 }))
  .map(([a, b]) => `${a.join('')}${MARKER}${b.join('')}`);

/**
 * Query parameters that carry a secret: what node-postgres, mysql2 and ioredis read
 * (password, sslpassword, password1..3) and the usual names of tokens, in any case.
 * (node-postgres reads `sslkey`/`sslcert` as file paths and names the path when it is
 * missing; a path is not a secret, so those are left to the pure redaction test.)
 */
export const CREDENTIAL_NAMES = [
  'password',
  'Password',
  'PASSWORD',
  'pass',
  'passwd',
  'pwd',
  'password1',
  'password2',
  'sslpassword',
  'auth',
  'auth_token',
  'token',
  'access_token',
  'secret',
  'client_secret',
  'api_key',
  'apiKey',
  'db_password',
  'x-api-key',
  'credentials',
  'pass%77ord',
];

export type Scheme =
  | 'postgres'
  | 'postgresql'
  | 'mysql'
  | 'redis'
  | 'rediss'
  | 'etcd'
  | 'sqlite'
  | 'file';
export const SERVER_SCHEMES: readonly Scheme[] = [
  'postgres',
  'postgresql',
  'mysql',
  'redis',
  'rediss',
  'etcd',
];

/** A URL holding `secret`, and where. */
export interface SecretUrl {
  readonly url: string;
  readonly secret: string;
  readonly position: string;
  /** Whether the URL is well-formed, so its redaction must keep host and port. */
  readonly wellFormed: boolean;
}

/** A closed port: every server store fails at once with "connection refused". */
export const HOST = '127.0.0.1:1';

function path(scheme: Scheme): string {
  if (scheme === 'etcd') return '';
  return scheme === 'redis' || scheme === 'rediss' ? '/0' : '/test';
}

/**
 * Every position of `secret` in a URL of `scheme`. `local` is a directory for sqlite: and
 * file: stores (which hold secrets only in the query).
 */
export function secretUrls(scheme: Scheme, secret: string, name: string, local: string) {
  const enc = encodeURIComponent(secret);
  const query = `namespace=t&${name}=${enc}`;
  const out: SecretUrl[] = [];
  const add = (position: string, url: string, wellFormed: boolean) =>
    out.push({ url, secret, position, wellFormed });
  if (scheme === 'sqlite' || scheme === 'file') {
    const file = `${local}/${scheme === 'sqlite' ? 'x.db' : 'm.json'}`;
    add(`query ${name}`, `${scheme}:${file}?${query}`, true);
    return out;
  }
  const p = path(scheme);
  add('password, percent-encoded', `${scheme}://user:${enc}@${HOST}${p}`, true);
  add('password, as typed', `${scheme}://user:${secret}@${HOST}${p}`, false);
  add(`query ${name}`, `${scheme}://user@${HOST}${p}?${query}`, true);
  if (scheme === 'redis' || scheme === 'rediss') {
    add('token as password', `${scheme}://:${secret}@${HOST}${p}`, false);
    add('token as user, percent-encoded', `${scheme}://${enc}@${HOST}${p}`, true);
    // A ':' would make the part after it the password: the part before would be a user name.
    if (!secret.includes(':'))
      add('token as user, as typed', `${scheme}://${secret}@${HOST}${p}`, false);
  }
  return out;
}

/** An arbitrary URL of any of `schemes` with a secret in one position. */
export function secretUrlArb(schemes: readonly Scheme[], local: string): fc.Arbitrary<SecretUrl> {
  return fc
    .tuple(fc.constantFrom(...schemes), secretArb, fc.constantFrom(...CREDENTIAL_NAMES), fc.nat())
    .map(([scheme, secret, name, pick]) => {
      const all = secretUrls(scheme, secret, name, local);
      return all[pick % all.length]!;
    });
}

/** Fails when `text` holds the secret, percent-encoded or not, or any part holding the marker. */
export function assertNoSecret(text: string, c: SecretUrl, where: string): void {
  const lower = text.toLowerCase();
  for (const form of [c.secret, encodeURIComponent(c.secret), MARKER]) {
    assert.ok(
      !lower.includes(form.toLowerCase()),
      `${where} shows the secret (${c.position}) of ${JSON.stringify(c.url)}:\n${text}`,
    );
  }
}
