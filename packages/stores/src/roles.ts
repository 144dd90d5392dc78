/**
 * What each store role accepts, and the message for a URL of the wrong kind (issue 20). A
 * role is what a URL is given for: the worker-ID leases (`--store` of serve and gen), the
 * sequences (`--sequences`), the counters' durable marks (`--marks`). A scheme of another role
 * is named with the role that takes it; an unknown scheme is named with every known one.
 */

/** A store role: its flag, what it holds, and the schemes it accepts (in the order shown). */
export interface StoreRole {
  readonly flag: string;
  readonly holds: string;
  readonly schemes: readonly string[];
}

export const STORE_ROLES = {
  store: {
    flag: '--store',
    holds: 'leases',
    schemes: ['sqlite', 'file', 'postgres', 'redis', 'etcd'],
  },
  sequences: {
    flag: '--sequences',
    holds: 'segments',
    schemes: ['sqlite', 'postgres', 'mysql', 'redis'],
  },
  marks: { flag: '--marks', holds: 'marks', schemes: ['sqlite', 'postgres'] },
} as const satisfies Record<string, StoreRole>;

export type StoreRoleName = keyof typeof STORE_ROLES;

/** Every scheme a store URL may have, in the order messages list them. */
export const KNOWN_SCHEMES: readonly string[] = [
  'sqlite',
  'file',
  'postgres',
  'mysql',
  'redis',
  'etcd',
];

/** What a scheme holds, in words, when it is not a role's. */
const HOLDS: Record<string, string> = {
  sqlite: 'leases, segments and marks',
  file: 'leases',
  postgres: 'leases, segments and marks',
  mysql: 'segments',
  redis: 'leases and counters',
  etcd: 'leases',
};

/** `sqlite:`, `file:`, `postgres://`, ...: a scheme as its URLs start. */
export function schemePrefix(scheme: string): string {
  return scheme === 'sqlite' || scheme === 'file' ? `${scheme}:` : `${scheme}://`;
}

const list = (schemes: readonly string[]) => schemes.map(schemePrefix).join(', ');

/**
 * Why `scheme` cannot serve `role`, naming the schemes the role accepts: "mysql:// holds
 * segments: use it with --sequences; --store needs one of sqlite:, file:, ...", or for an
 * unknown scheme 'unknown store scheme "bogus:"; known: ... . --store needs one of ...'.
 * `scheme` is as `storeScheme` returns it (postgresql and mariadb folded).
 */
export function wrongSchemeMessage(roleName: StoreRoleName, scheme: string): string {
  const role: StoreRole = STORE_ROLES[roleName];
  const needs = `${role.flag} needs one of ${list(role.schemes)}`;
  if (!KNOWN_SCHEMES.includes(scheme)) {
    return `unknown store scheme "${scheme}:"; known: ${list(KNOWN_SCHEMES)}. ${needs}`;
  }
  const others = Object.values(STORE_ROLES as Record<string, StoreRole>)
    .filter((r) => r !== role && r.schemes.includes(scheme))
    .map((r) => r.flag);
  const use = others.length === 0 ? '' : `: use it with ${others.join(' or ')}`;
  return `${schemePrefix(scheme)} holds ${HOLDS[scheme]}${use}; ${needs}`;
}
