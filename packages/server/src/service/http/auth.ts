/**
 * Bearer tokens: each scoped to schemes and tags (Tinyid's per-business tokens), some with
 * admin rights. A presented token is hashed (SHA-256) and its digest looked up among the
 * configured tokens' digests: the work per request is one hash and one map lookup whatever
 * the number of tokens, and what the lookup's timing could tell a guesser is about the
 * digest, whose bytes no one can steer toward a configured token's without its preimage.
 * With no tokens configured, ID and sequence routes are open and the admin routes are
 * refused (they always need an admin token).
 */
import { hash } from 'node:crypto';
import type { TokenConfig, TokenScope } from '../config/config-values.js';
import { HttpError, ServiceCode } from './errors.js';

/** Who made a request: a configured token, or nobody (open service). */
export interface Principal {
  readonly name: string;
  readonly admin: boolean;
  readonly schemes: ReadonlySet<string> | null;
  readonly tags: ReadonlySet<string> | null;
  /** `ids` (IDs, sequences), `lease` (worker-ID leases): what routes of each access it may call. */
  readonly scopes: ReadonlySet<TokenScope>;
  /** The worker IDs a `lease` token may lease, [min, max]; null: any. */
  readonly workers?: readonly [number, number] | null;
  /** How many live leases a `lease` token may hold; null: no limit. */
  readonly maxLeases?: number | null;
}

// One-shot hashing: a third of the cost of createHash().update().digest() per request.
const digest = (s: string): string => hash('sha256', s, 'base64');
const scope = (names: readonly string[]) => (names.includes('*') ? null : new Set(names));

/** Checks bearer tokens. Stateless after construction; safe to share. */
export class TokenAuth {
  /** The configured tokens by the SHA-256 digest of their text (base64). */
  readonly #byDigest = new Map<string, Principal>();

  constructor(tokens: readonly TokenConfig[]) {
    for (const t of tokens) {
      this.#byDigest.set(digest(t.token), {
        name: t.name,
        admin: t.admin,
        schemes: scope(t.schemes),
        tags: scope(t.tags),
        scopes: new Set(t.scopes),
        workers: t.workers ?? null,
        maxLeases: t.maxLeases ?? null,
      });
    }
  }

  /** Whether any token is configured (else ID routes are open). */
  get enabled(): boolean {
    return this.#byDigest.size > 0;
  }

  /**
   * The principal of an Authorization header value; null when auth is off and none was given.
   * Throws HttpError 401 for a missing, malformed or unknown token when auth is on.
   */
  identify(header: string | undefined): Principal | null {
    if (!this.enabled && header === undefined) return null;
    if (header === undefined)
      throw unauthorized('this route needs a token: send "Authorization: Bearer <token>"');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (m === null) throw unauthorized('malformed Authorization header: expected "Bearer <token>"');
    const found = this.#byDigest.get(digest(m[1] as string));
    if (found === undefined) throw unauthorized('unknown token');
    return found;
  }
}

const unauthorized = (message: string) => new HttpError(ServiceCode.UNAUTHORIZED, message);

/**
 * Throws 403 unless `p` has scope `s` (null principal: open service). A `lease` token mints
 * no IDs and an `ids` token takes no lease: the two are handed to different processes.
 */
export function allowScope(p: Principal | null, s: TokenScope): void {
  if (p !== null && !p.scopes.has(s)) {
    const what = s === 'lease' ? 'take worker-ID leases' : 'issue IDs or draw sequences';
    throw new HttpError(
      ServiceCode.FORBIDDEN,
      `token "${p.name}" may not ${what}: give it the scope "${s}" ("scopes": ["${s}"])`,
    );
  }
}

/** Throws 403 unless `p` may use scheme `scheme` (null principal: open service). */
export function allowScheme(p: Principal | null, scheme: string): void {
  if (p !== null && p.schemes !== null && !p.schemes.has(scheme)) {
    throw new HttpError(ServiceCode.FORBIDDEN, `token "${p.name}" may not issue ${scheme} IDs`);
  }
}

/** Throws 403 unless `p` may draw from tag `tag`. */
export function allowTag(p: Principal | null, tag: string): void {
  if (p !== null && p.tags !== null && !p.tags.has(tag)) {
    throw new HttpError(ServiceCode.FORBIDDEN, `token "${p.name}" may not use sequence "${tag}"`);
  }
}

/** Throws 401/403 unless `p` is an admin token. */
export function allowAdmin(p: Principal | null): void {
  if (p === null) {
    throw new HttpError(
      ServiceCode.UNAUTHORIZED,
      'admin routes need an admin token: configure one (tokens with "admin": true, or IDFORGE_ADMIN_TOKEN) and send it as a bearer token',
    );
  }
  if (!p.admin)
    throw new HttpError(ServiceCode.FORBIDDEN, `token "${p.name}" is not an admin token`);
}

/** Who a request's Authorization header names, when its route admits them; else throws 401/403. */
export type PrincipalCheck = (authorization: string | undefined) => Principal | null;

/**
 * The check a route of `access` runs on each request's Authorization header, or null for a
 * route open to all (ops routes unless `protectOps`). The gate hook and the fast lane both
 * call the one it returns.
 */
export function principalCheck(
  auth: TokenAuth,
  access: TokenScope | 'ops' | 'admin', // deps.ts's Access (which imports this module's types)
  protectOps: boolean,
): PrincipalCheck | null {
  if (access === 'ops' && !protectOps) return null;
  if (access === 'admin')
    return (header) => {
      const p = auth.identify(header);
      allowAdmin(p);
      return p;
    };
  return (header) => {
    const p = auth.identify(header);
    if (access !== 'ops') allowScope(p, access);
    return p;
  };
}
