/**
 * The registry of ID schemes: one list of descriptors (./descriptor.ts), and every list of
 * schemes idforge and @idforge/server keep derived from it. A new scheme is its module, its
 * descriptor and one line here. The order is meaningful: inspect detects in it (a UUID's
 * shapes before the lengths of the others, decimal digits last) and the docs, the CLI's help
 * and the service's routes list the schemes in it.
 *
 * Only multi-scheme consumers import this module (inspect, the wire contract, the client's
 * checks, the CLI, the server): a bundle of one scheme's functions never reaches it.
 */
import { ksuidScheme } from '../ksuid.js';
import type { SchemeBenchKey, SchemeDescriptor, SchemeInspector } from './descriptor.js';
import { hlcScheme, snowflakeScheme } from './snowflake.js';
import { ulidScheme } from './ulid.js';
import { uuidScheme, uuidv4Scheme, uuidv7Scheme } from './uuid.js';

/** The registry: one line per scheme. */
const REGISTERED = [
  uuidScheme,
  uuidv4Scheme,
  uuidv7Scheme,
  ulidScheme,
  ksuidScheme,
  snowflakeScheme,
  hlcScheme,
] as const;

/** Every scheme, in registry order. */
export const SCHEMES: readonly SchemeDescriptor[] = REGISTERED;

type Registered = (typeof REGISTERED)[number];
type Served = Extract<Registered, { readonly service: object }>;
type Inspected = Extract<Registered, { readonly inspect: object }>;

/** The name of a scheme the service issues. */
export type ServedScheme = Served['name'];
/** The name of a scheme the service makes in its own process, with the descriptor's generator. */
export type GeneratedScheme = Extract<
  Served,
  { readonly service: { readonly generator: unknown } }
>['name'];
/** The name of a key the registry's schemes give `idforge bench db`. */
export type SchemeBenchKeyName = Extract<
  Registered,
  { readonly bench: readonly unknown[] }
>['bench'][number]['name'];
/** A hint that `inspect` accepts. */
export type InspectHint = Inspected['inspect']['hints'][number];
/** A scheme as `inspect` reports it. */
export type InspectFamily = Inspected['inspect']['family'];

/** The names of the schemes of `registry` that the service issues, in its order. */
export function servedNames(registry: readonly SchemeDescriptor[]): string[] {
  return registry.filter((s) => s.service !== undefined).map((s) => s.name);
}

/** The hints `inspect` accepts for the schemes of `registry`, in its order. */
export function inspectHints(registry: readonly SchemeDescriptor[]): string[] {
  return registry.flatMap((s) => s.inspect?.hints ?? []);
}

/** The inspectors of `registry`, in its order: the order inspect detects in. */
export function inspectors(registry: readonly SchemeDescriptor[]): SchemeInspector[] {
  return registry.flatMap((s) => (s.inspect === undefined ? [] : [s.inspect]));
}

/** The keys the schemes of `registry` give `idforge bench db`, in its order. */
export function benchKeys(registry: readonly SchemeDescriptor[]): SchemeBenchKey[] {
  return registry.flatMap((s) => s.bench ?? []);
}

/** The registered scheme named `name`, or undefined. */
export function schemeNamed(
  name: string,
  registry: readonly SchemeDescriptor[] = SCHEMES,
): SchemeDescriptor | undefined {
  return registry.find((s) => s.name === name);
}

/** `items` as prose: `a, b or c`. */
export function listInWords(items: readonly string[], last = 'or'): string {
  if (items.length < 2) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}
