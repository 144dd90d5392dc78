/**
 * What each store role accepts, and the message for a URL of the wrong kind (issue 20). A
 * role is what a URL is given for: the worker-ID leases (`--store` of serve and gen), the
 * sequences (`--sequences`), the counters' durable marks (`--marks`). Which schemes a role
 * accepts is read from the backends' descriptors (backends.ts): the backends that open one of
 * the role's ports. A scheme of another role is named with the role that takes it; an unknown
 * scheme is named with every known one.
 */
import type { Backend, BackendPort } from './backend.js';
import { backendOf, backends, holdsAStore } from './backends.js';

/** A store role: its flag, what it holds, and the ports a backend must open for it. */
export interface StoreRole {
  readonly flag: string;
  readonly holds: string;
  readonly ports: readonly BackendPort[];
}

export const STORE_ROLES = {
  store: { flag: '--store', holds: 'leases', ports: ['leases'] },
  sequences: { flag: '--sequences', holds: 'segments', ports: ['segments', 'counters'] },
  marks: { flag: '--marks', holds: 'marks', ports: ['marks'] },
} as const satisfies Record<string, StoreRole>;

export type StoreRoleName = keyof typeof STORE_ROLES;

const opensAny = (b: Backend, ports: readonly BackendPort[]) =>
  ports.some((p) => b.open[p] !== undefined);

/** The schemes a role accepts, in registry order (the order messages list them). */
export function roleSchemes(roleName: StoreRoleName): string[] {
  const { ports } = STORE_ROLES[roleName];
  return backends()
    .filter((b) => opensAny(b, ports))
    .map((b) => b.name);
}

/**
 * What a sequence store of `scheme` keeps: `'segments'` (a table of tags, each with its step
 * and format), `'counters'` (bare counters, whose numbers need durable marks, `--marks`), or
 * null when the scheme holds no sequences. A backend that opens both is a segment store.
 */
export function sequenceKind(scheme: string): 'segments' | 'counters' | null {
  const b = backendOf(scheme);
  if (b === undefined || b.name !== scheme) return null;
  if (b.open.segments !== undefined) return 'segments';
  return b.open.counters !== undefined ? 'counters' : null;
}

/** The URL forms of the backends that keep `kind` sequences: "sqlite:, postgres://, mysql://". */
export function sequenceKindForms(kind: 'segments' | 'counters'): string {
  return list(
    backends()
      .filter((b) => sequenceKind(b.name) === kind)
      .map((b) => b.name),
  );
}

/** Whether a scheme (as `storeScheme` returns it) serves a role. */
export function servesRole(roleName: StoreRoleName, scheme: string): boolean {
  const b = backendOf(scheme);
  return b !== undefined && b.name === scheme && opensAny(b, STORE_ROLES[roleName].ports);
}

/** Every scheme a store URL may have (a backend that holds a store), in the order messages list them. */
export function knownSchemes(): string[] {
  return backends()
    .filter(holdsAStore)
    .map((b) => b.name);
}

/** What a backend holds, in words: "leases, segments and marks". */
function holds(backend: Backend): string {
  const words = (['leases', 'segments', 'counters', 'marks'] as const).filter(
    (p) => backend.open[p] !== undefined,
  );
  return words.length <= 1
    ? (words[0] ?? 'nothing')
    : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** `sqlite:`, `file:`, `postgres://`, ...: a scheme as its URLs start. */
export function schemePrefix(scheme: string): string {
  return backendOf(scheme)?.url?.path === true ? `${scheme}:` : `${scheme}://`;
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
  const needs = `${role.flag} needs one of ${list(roleSchemes(roleName))}`;
  const backend = backendOf(scheme);
  if (backend === undefined || backend.name !== scheme || !holdsAStore(backend)) {
    return `unknown store scheme "${scheme}:"; known: ${list(knownSchemes())}. ${needs}`;
  }
  const others = (Object.keys(STORE_ROLES) as StoreRoleName[])
    .filter((r) => r !== roleName && servesRole(r, scheme))
    .map((r) => STORE_ROLES[r].flag);
  const use = others.length === 0 ? '' : `: use it with ${others.join(' or ')}`;
  return `${schemePrefix(scheme)} holds ${holds(backend)}${use}; ${needs}`;
}
