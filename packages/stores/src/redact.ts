/**
 * Showing a URL without its secrets, by rules given: the machinery of `redactUrl` (url.ts,
 * which reads each scheme's rules from the registry) and what an adapter uses for its own URL
 * ({@link redactOwnUrl}, {@link splitServerUrl}) with its backend's rules (`<name>/rules.ts`).
 * A leaf module: the adapters import it, and the registry reaches the adapters, so it must not
 * import the registry.
 *
 * The URL is parsed as the drivers parse it (node-postgres, ioredis and mysql2 all use the
 * WHATWG `URL`; the user information ends at the last `@` before the host), and the output is
 * rebuilt from the parts: scheme, user, host, port, path and the query, with every secret
 * replaced by `***`. What cannot be parsed is never echoed: the placeholder says which part is
 * wrong instead.
 */
import { type BackendRules, backendProtocols, type UrlRules } from './backend.js';

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
/** A URL's scheme, its first group (any case). */
export const URL_SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/** Whether a query parameter's value is a secret (the name as decoded, any case). */
export function isCredentialParam(name: string): boolean {
  return CREDENTIAL_PARAMS.includes(name.toLowerCase()) || CREDENTIAL_NAME.test(name);
}

/**
 * The rules of one backend's schemes. Another scheme (an adapter given a URL of another
 * backend) is read as cautiously as any driver reads it: a lone user name is taken for a
 * password, as ioredis does, so the refusal that names the URL shows no secret.
 */
function ownSchemes(own: BackendRules): SchemeRules {
  const protocols = backendProtocols(own);
  return (scheme) =>
    protocols.includes(`${scheme}:`)
      ? { url: own.url ?? {}, known: true }
      : { url: { loneUserIsSecret: true }, known: false };
}

/** An adapter's URL without its secrets, read by its backend's rules (`redactUrl`'s output). */
export function redactOwnUrl(url: string, own: BackendRules): string {
  return shownUrl(analyseUrl(url, ownSchemes(own)));
}

/** What is wrong with a URL that cannot be shown, in words that quote none of it. */
export interface UrlProblem {
  /** "postgres URL" for a known scheme, else "store URL" (the scheme may be a user name). */
  readonly name: string;
  readonly why: string;
}

/**
 * How the driver of a scheme reads its URL, and whether the scheme is a known one (messages
 * then name it: "postgres URL"; else "store URL", since the scheme may be a user name).
 */
export type SchemeRules = (scheme: string) => { readonly url: UrlRules; readonly known: boolean };

/** The redacted URL, or what makes it unparsable (see `redactUrl` in url.ts). */
export function analyseUrl(url: string, rulesOf: SchemeRules): string | UrlProblem {
  const problem = (scheme: string, why: string): UrlProblem => ({
    name: scheme !== '' && rulesOf(scheme).known ? `${scheme} URL` : 'store URL',
    why,
  });
  if (typeof url !== 'string') return problem('', 'it is not a string');
  const m = URL_SCHEME.exec(url);
  if (m === null) {
    return problem('', 'it does not start with a scheme such as "postgres://" or "sqlite:"');
  }
  const scheme = m[1]!.toLowerCase();
  const rest = url.slice(m[0].length);
  const rules = rulesOf(scheme).url;
  const r = rest.startsWith('//') ? hierarchical(rules, url, rest) : opaque(rules, rest);
  return typeof r === 'string' ? `${scheme}:${r}` : problem(scheme, r.why);
}

/** A redacted URL, or the placeholder that says what makes it unparsable. */
export function shownUrl(r: string | UrlProblem): string {
  return typeof r === 'string' ? r : `<unparsable ${r.name}: ${r.why}>`;
}

/** What makes a URL unparsable, before the scheme is named. */
interface Why {
  readonly why: string;
}

/** `sqlite:PATH?...`, `file:PATH?...` or `leveldb:DIR`: the path as written (it holds no credentials). */
function opaque(rules: UrlRules, rest: string): string | Why {
  const hash = rest.indexOf('#');
  const body = hash < 0 ? rest : rest.slice(0, hash);
  const q = body.indexOf('?');
  const path = q < 0 ? body : body.slice(0, q);
  const query = q < 0 ? '' : body.slice(q + 1);
  if (hasStrayAt(new URLSearchParams(query))) return { why: AT_AFTER_HOST };
  if (path.includes('@') && rules.path !== true) {
    // user:password@host without "//": the scheme is the user name, the path holds the rest.
    return { why: 'expected "//" after the scheme, and nothing like user@host without it' };
  }
  return `${path}${renderQuery(query)}${hash < 0 ? '' : `#${MASK}`}`;
}

const AT_AFTER_HOST =
  'an "@" follows the host: a user or password containing "/", "?" or "#" must have them ' +
  'percent-encoded (%2F, %3F, %23)';

/** `scheme://[user[:password]@]host[:port][/path][?query][#fragment]`. */
function hierarchical(rules: UrlRules, url: string, rest: string): string | Why {
  const afterSlashes = rest.slice(2);
  const end = afterSlashes.search(rules.backslashEndsHost ? /[/?#\\]/ : /[/?#]/);
  const authority = end < 0 ? afterSlashes : afterSlashes.slice(0, end);
  const tail = end < 0 ? '' : afterSlashes.slice(end);
  let parsed = parse(url);
  let host: string | null = null;
  if (parsed === null && url.includes('@/')) {
    // node-postgres's fallback for an empty host (postgres://user@/db?host=/var/run/postgresql).
    parsed = parse(url.replace('@/', '@___DUMMY___/'));
    host = '';
  }
  if (parsed === null && rules.memberList && MEMBERS.test(authority)) {
    // etcd://host:port,host:port: a list of members, which URL rejects as a port.
    parsed = parse(`etcd://h${tail}`);
    host = authority;
  }
  if (parsed === null) return { why: diagnose(authority, tail) };
  if (
    parsed.pathname.includes('@') ||
    parsed.hash.includes('@') ||
    hasStrayAt(parsed.searchParams)
  ) {
    return { why: AT_AFTER_HOST };
  }
  if (!rules.toleratesStrayPercent && !decodable(parsed)) {
    // node-postgres re-encodes a stray "%"; ioredis and mysql2 throw URIError on it.
    return {
      why: 'the user or password has a "%" not followed by two hex digits (write "%" as %25)',
    };
  }
  let user = parsed.username;
  if (parsed.password !== '') user = `${user}:${MASK}`;
  else if (user !== '' && rules.loneUserIsSecret) user = MASK;
  const userinfo = user === '' ? '' : `${user}@`;
  const hostText = host ?? parsed.host;
  const query = parsed.search.slice(1);
  const hash = parsed.hash === '' ? '' : `#${MASK}`;
  return `//${userinfo}${hostText}${parsed.pathname}${renderQuery(query)}${hash}`;
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

/** How a server backend's URL is spelt, for {@link splitServerUrl} and its messages. */
export interface ServerUrlForm {
  /** The backend: its driver takes the URL `protocol`s of its schemes (`'postgres:'`, ...). */
  readonly rules: BackendRules;
  /** The URL's shape, shown when it does not parse (`postgres://user@host:port/database`). */
  readonly form: string;
  /** The schemes it takes, shown for another scheme (`a postgres:// or postgresql:// URL`). */
  readonly schemes: string;
}

/**
 * A server store's URL parsed as its driver parses it, the WHATWG `URL`, without its
 * `namespace` parameter (which the driver would misread), and that parameter (null when
 * absent). Throws `RangeError` "store URL: expected FORM, got URL" when it does not parse,
 * "store URL: expected SCHEMES, got URL" for another scheme, the URL redacted; a URL that
 * cannot be shown redacted (an "@" after the host, ...) is refused without being shown.
 */
export function splitServerUrl(
  url: string,
  { rules, form, schemes }: ServerUrlForm,
): { readonly parsed: URL; readonly namespace: string | null } {
  const shown = analyseUrl(url, ownSchemes(rules));
  if (typeof shown !== 'string') {
    throw new RangeError(
      `store URL: expected ${form}, but in this ${shown.name} ${shown.why} (the URL is not ` +
        'shown: it may hold a password)',
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RangeError(`store URL: expected ${form}, got "${shown}"`);
  }
  if (!backendProtocols(rules).includes(parsed.protocol)) {
    throw new RangeError(`store URL: expected ${schemes}, got "${shown}"`);
  }
  const namespace = parsed.searchParams.get('namespace');
  parsed.searchParams.delete('namespace');
  return { parsed, namespace };
}
