/**
 * Store URLs in messages: the scheme of a URL ({@link storeScheme}) and the URL without its
 * secrets ({@link redactUrl}). Every error, log line and CLI output that names a store goes
 * through `redactUrl` (or, in an adapter, redact.ts's `redactOwnUrl` with its backend's own
 * rules). No driver, nothing else of the project. Which schemes exist and how each driver
 * reads its URL (a path, a member list, a lone user that is a password) come from the
 * backends' descriptors (backends.ts); how a URL is taken apart is redact.ts's.
 */
import { backendOf, backends, formsOf, holdsAStore } from './backends.js';
import { analyseUrl, type SchemeRules, shownUrl, URL_SCHEME } from './redact.js';

/** Each scheme's rules as its backend's descriptor gives them; nothing special for an unknown one. */
const registered: SchemeRules = (scheme) => {
  const backend = backendOf(scheme);
  return { url: backend?.url ?? {}, known: backend !== undefined };
};

/**
 * The URL with its password, any credential-like query parameter and (for redis:// and
 * rediss://, where a lone user name is often the password) a user without password replaced
 * by `***`: safe for logs and error messages. A URL that does not parse becomes a placeholder
 * such as `<unparsable postgres URL: the host or port is not valid>` that never contains any
 * of its text but the scheme.
 */
export function redactUrl(url: string): string {
  return shownUrl(analyseUrl(url, registered));
}

/**
 * Throws `RangeError` for a URL {@link redactUrl} cannot show (no scheme, an invalid host or
 * port, an "@" after the host...), naming what is wrong but not the URL. Such a URL must not
 * reach a driver, which would quote it or, worse, look a piece of its password up as a host.
 */
export function checkStoreUrl(url: string): void {
  const r = analyseUrl(url, registered);
  if (typeof r !== 'string') {
    throw new RangeError(
      `store URL: expected ${formsOf(backends().filter(holdsAStore))}, but in this ${r.name} ` +
        `${r.why} (the URL is not shown: it may hold a password)`,
    );
  }
}

/**
 * The scheme of a store URL ('sqlite', 'file', 'postgres', 'redis', 'etcd', 'mysql', ...), with
 * a backend's aliases folded into its name (postgresql: is postgres, mariadb: is mysql); see
 * {@link checkStoreUrl}.
 */
export function storeScheme(url: string): string {
  checkStoreUrl(url);
  const s = URL_SCHEME.exec(url)![1]!.toLowerCase();
  const backend = backendOf(s);
  return backend?.aliases?.includes(s) === true ? backend.name : s;
}
