/**
 * Store URLs in messages: the scheme of a URL ({@link storeScheme}) and the URL without its
 * secrets ({@link redactUrl}). Every error, log line and CLI output that names a store goes
 * through `redactUrl`. A leaf module: no driver, nothing else of the project.
 *
 * The URL is parsed as the drivers parse it (node-postgres, ioredis and mysql2 all use the
 * WHATWG `URL`; the user information ends at the last `@` before the host), and the output is
 * rebuilt from the parts: scheme, user, host, port, path and the query, with every secret
 * replaced by `***`. What cannot be parsed is never echoed: the placeholder says which part is
 * wrong instead. Which schemes exist and how each driver reads its URL (a path, a member list,
 * a lone user that is a password) come from the backends' descriptors (backends.ts).
 */
import type { UrlRules } from './backend.js';
import { backendOf, backends, formsOf, holdsAStore } from './backends.js';

/**
 * Query parameters the drivers read a secret from (node-postgres: password, sslpassword,
 * sslkey; mysql2: password, password1..3, passwordSha1; ioredis: password), plus the common
 * names of tokens. Any name matching {@link CREDENTIAL_NAME} is redacted too.
 */
export const CREDENTIAL_PARAMS: readonly string[] = [
  'password',
  'pass',
  'passwd',
  'pwd',
  'password1',
  'password2',
  'password3',
  'passwordsha1',
  'sslpassword',
  'sslkey',
  'auth',
  'token',
  'access_token',
  'secret',
  'client_secret',
  'api_key',
  'apikey',
  'key',
  'credentials',
];

/** A query parameter whose name contains one of these words is redacted (case-insensitive). */
export const CREDENTIAL_NAME = /pass|pwd|secret|token|auth|key|credential|private|jwt|bearer/i;

const MASK = '***';
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/** Whether a query parameter's value is a secret (the name as decoded, any case). */
export function isCredentialParam(name: string): boolean {
  return CREDENTIAL_PARAMS.includes(name.toLowerCase()) || CREDENTIAL_NAME.test(name);
}

/**
 * The URL with its password, any credential-like query parameter and (for redis:// and
 * rediss://, where a lone user name is often the password) a user without password replaced
 * by `***`: safe for logs and error messages. A URL that does not parse becomes a placeholder
 * such as `<unparsable postgres URL: the host or port is not valid>` that never contains any
 * of its text but the scheme.
 */
export function redactUrl(url: string): string {
  const r = analyse(url);
  return typeof r === 'string' ? r : `<unparsable ${r.name}: ${r.why}>`;
}

/** What is wrong with a URL that cannot be shown, in words that quote none of it. */
interface Problem {
  /** "postgres URL" for a known scheme, else "store URL" (the scheme may be a user name). */
  readonly name: string;
  readonly why: string;
}

function problem(scheme: string, why: string): Problem {
  return { name: backendOf(scheme) === undefined ? 'store URL' : `${scheme} URL`, why };
}

/** How the driver of `scheme` reads its URL (nothing special for an unknown scheme). */
function rules(scheme: string): UrlRules {
  return backendOf(scheme)?.url ?? {};
}

/** The redacted URL, or what makes it unparsable. */
function analyse(url: string): string | Problem {
  if (typeof url !== 'string') return problem('', 'it is not a string');
  const m = SCHEME.exec(url);
  if (m === null) {
    return problem('', 'it does not start with a scheme such as "postgres://" or "sqlite:"');
  }
  const scheme = m[1]!.toLowerCase();
  const rest = url.slice(m[0].length);
  return rest.startsWith('//') ? hierarchical(scheme, url, rest) : opaque(scheme, rest);
}

/** `sqlite:PATH?...`, `file:PATH?...` or `leveldb:DIR`: the path as written (it holds no credentials). */
function opaque(scheme: string, rest: string): string | Problem {
  const hash = rest.indexOf('#');
  const body = hash < 0 ? rest : rest.slice(0, hash);
  const q = body.indexOf('?');
  const path = q < 0 ? body : body.slice(0, q);
  const query = q < 0 ? '' : body.slice(q + 1);
  if (hasStrayAt(new URLSearchParams(query))) return problem(scheme, AT_AFTER_HOST);
  if (path.includes('@') && rules(scheme).path !== true) {
    // user:password@host without "//": the scheme is the user name, the path holds the rest.
    return problem(scheme, 'expected "//" after the scheme, and nothing like user@host without it');
  }
  return `${scheme}:${path}${renderQuery(query)}${hash < 0 ? '' : `#${MASK}`}`;
}

const AT_AFTER_HOST =
  'an "@" follows the host: a user or password containing "/", "?" or "#" must have them ' +
  'percent-encoded (%2F, %3F, %23)';

/** `scheme://[user[:password]@]host[:port][/path][?query][#fragment]`. */
function hierarchical(scheme: string, url: string, rest: string): string | Problem {
  const afterSlashes = rest.slice(2);
  const end = afterSlashes.search(rules(scheme).backslashEndsHost ? /[/?#\\]/ : /[/?#]/);
  const authority = end < 0 ? afterSlashes : afterSlashes.slice(0, end);
  const tail = end < 0 ? '' : afterSlashes.slice(end);
  let parsed = parse(url);
  let host: string | null = null;
  if (parsed === null && url.includes('@/')) {
    // node-postgres's fallback for an empty host (postgres://user@/db?host=/var/run/postgresql).
    parsed = parse(url.replace('@/', '@___DUMMY___/'));
    host = '';
  }
  if (parsed === null && rules(scheme).memberList && MEMBERS.test(authority)) {
    // etcd://host:port,host:port: a list of members, which URL rejects as a port.
    parsed = parse(`etcd://h${tail}`);
    host = authority;
  }
  if (parsed === null) return problem(scheme, diagnose(authority, tail));
  if (
    parsed.pathname.includes('@') ||
    parsed.hash.includes('@') ||
    hasStrayAt(parsed.searchParams)
  ) {
    return problem(scheme, AT_AFTER_HOST);
  }
  if (!rules(scheme).toleratesStrayPercent && !decodable(parsed)) {
    // node-postgres re-encodes a stray "%"; ioredis and mysql2 throw URIError on it.
    return problem(
      scheme,
      'the user or password has a "%" not followed by two hex digits (write "%" as %25)',
    );
  }
  let user = parsed.username;
  if (parsed.password !== '') user = `${user}:${MASK}`;
  else if (user !== '' && rules(scheme).loneUserIsSecret) user = MASK;
  const userinfo = user === '' ? '' : `${user}@`;
  const hostText = host ?? parsed.host;
  const query = parsed.search.slice(1);
  const hash = parsed.hash === '' ? '' : `#${MASK}`;
  return `${scheme}://${userinfo}${hostText}${parsed.pathname}${renderQuery(query)}${hash}`;
}

/** host[:port] or [v6][:port], comma-separated: nothing secret, safe to show as written. */
const MEMBERS =
  /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?(,(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?)*$/;

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * An `@` in a query parameter that is not itself redacted means part of the user information
 * slid past the host (an unencoded `?` in the password); showing it would show the secret.
 */
function hasStrayAt(query: URLSearchParams): boolean {
  for (const [name, value] of query) {
    if (name.includes('@') || (!isCredentialParam(name) && value.includes('@'))) return true;
  }
  return false;
}

/**
 * The query as written, but `***` for the value of every credential-like parameter (the name
 * is tested as the drivers decode it: `pass%77ord` is `password`).
 */
function renderQuery(raw: string): string {
  if (raw === '') return '';
  const parts = raw.split('&').map((part) => {
    const [entry] = new URLSearchParams(part);
    const eq = part.indexOf('=');
    return entry !== undefined && isCredentialParam(entry[0])
      ? `${eq < 0 ? part : part.slice(0, eq)}=${MASK}`
      : part;
  });
  return `?${parts.join('&')}`;
}

/** Which part of an unparsable `scheme://` URL is wrong, in words that quote none of it. */
function diagnose(authority: string, tail: string): string {
  if (tail.includes('@')) return AT_AFTER_HOST;
  if (authority === '') return 'there is no host after "//"';
  const at = authority.lastIndexOf('@');
  const hostPort = authority.slice(at + 1);
  if (hostPort === '') return 'there is no host after "@"';
  if (parse(`x://${hostPort}`) === null) {
    return `the host or port${at < 0 ? '' : ' after "@"'} is not valid (expected host[:port], a port from 0 to 65535)`;
  }
  return 'the user or password is not valid (percent-encode its special characters)';
}

function decodable(parsed: URL): boolean {
  try {
    decodeURIComponent(parsed.username);
    decodeURIComponent(parsed.password);
    return true;
  } catch {
    return false;
  }
}

/**
 * Throws `RangeError` for a URL {@link redactUrl} cannot show (no scheme, an invalid host or
 * port, an "@" after the host...), naming what is wrong but not the URL. Such a URL must not
 * reach a driver, which would quote it or, worse, look a piece of its password up as a host.
 */
export function checkStoreUrl(url: string): void {
  const r = analyse(url);
  if (typeof r !== 'string') {
    throw new RangeError(
      `store URL: expected ${formsOf(backends().filter(holdsAStore))}, but in this ${r.name} ` +
        `${r.why} (the URL is not shown: it may hold a password)`,
    );
  }
}

/** How a server backend's URL is spelt, for {@link splitServerUrl} and its messages. */
export interface ServerUrlForm {
  /** The URL's `protocol`s the driver takes (`'postgres:'`, `'postgresql:'`). */
  readonly protocols: readonly string[];
  /** The URL's shape, shown when it does not parse (`postgres://user@host:port/database`). */
  readonly form: string;
  /** The schemes it takes, shown for another scheme (`a postgres:// or postgresql:// URL`). */
  readonly schemes: string;
}

/**
 * A server store's URL ({@link checkStoreUrl} first) parsed as its driver parses it, the WHATWG
 * `URL`, without its `namespace` parameter (which the driver would misread), and that
 * parameter (null when absent). Throws `RangeError` "store URL: expected FORM, got URL" when it
 * does not parse, "store URL: expected SCHEMES, got URL" for another scheme, the URL redacted.
 */
export function splitServerUrl(
  url: string,
  { protocols, form, schemes }: ServerUrlForm,
): { readonly parsed: URL; readonly namespace: string | null } {
  checkStoreUrl(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RangeError(`store URL: expected ${form}, got "${redactUrl(url)}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new RangeError(`store URL: expected ${schemes}, got "${redactUrl(url)}"`);
  }
  const namespace = parsed.searchParams.get('namespace');
  parsed.searchParams.delete('namespace');
  return { parsed, namespace };
}

/**
 * The scheme of a store URL ('sqlite', 'file', 'postgres', 'redis', 'etcd', 'mysql', ...), with
 * a backend's aliases folded into its name (postgresql: is postgres, mariadb: is mysql); see
 * {@link checkStoreUrl}.
 */
export function storeScheme(url: string): string {
  checkStoreUrl(url);
  const s = SCHEME.exec(url)![1]!.toLowerCase();
  const backend = backendOf(s);
  return backend?.aliases?.includes(s) === true ? backend.name : s;
}
