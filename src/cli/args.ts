/**
 * The CLI's argument parsers: numbers, bigints, tags, Snowflake fields, worker ranges and store
 * URLs. Each throws {@link UsageError} in the tool's own words, naming the option as the command
 * line spells it (`--count`, `--field worker`) and, for a number, the range it must lie in.
 * The environment comes in through {@link CliIo.env}; nothing here reads the process environment.
 */
import type { Layout } from '../core/index.js';
import { assertTag, assertTicketTag } from '../sequences/index.js';
import { type CliIo, UsageError } from './io.js';

/** An integer option in [min, max] (a negative or out-of-range one is told the range). */
export function integer(name: string, text: string, min: number, max: number): number {
  if (!/^-?[0-9]+$/.test(text)) {
    throw new UsageError(`${name}: expected an integer from ${min} to ${max}, got "${text}"`);
  }
  const n = Number(text);
  if (n < min || n > max) throw new UsageError(`${name}: expected ${min} to ${max}, got ${text}`);
  return n;
}

/** A bigint option in [min, max]; `maxText` names the maximum when it is a power (2^63 - 1). */
export function bigintArg(
  name: string,
  text: string,
  min: bigint,
  max: bigint,
  maxText = max.toString(),
): bigint {
  if (!/^-?[0-9]+$/.test(text)) {
    throw new UsageError(`${name}: expected an integer from ${min} to ${maxText}, got "${text}"`);
  }
  const v = BigInt(text);
  if (v < min || v > max)
    throw new UsageError(`${name}: expected ${min} to ${maxText}, got ${text}`);
  return v;
}

/** A sequence tag, by the one rule of idforge/sequences (`assertTag`). */
export function tagArg(text: string, where?: string): string {
  return usage(() => assertTag(text), where);
}

/** A tag that also names a table (`assertTicketTag`): ticket servers and planned writers. */
export function ticketTagArg(text: string, where?: string): string {
  return usage(() => assertTicketTag(text), where);
}

/** `check()`, its RangeError or TypeError as a UsageError (prefixed with `where`, e.g. `seq next`). */
function usage<T>(check: () => T, where?: string): T {
  try {
    return check();
  } catch (e) {
    const message = (e as Error).message;
    throw new UsageError(where === undefined ? message : `${where}: ${message}`);
  }
}

/**
 * The `--field NAME=VALUE` pairs as an object, each NAME a node field of `layout` and each
 * VALUE within its width; errors name the option as `--field NAME`.
 */
export function parseFields(
  pairs: readonly string[] | undefined,
  layout: Layout,
): Record<string, number> {
  const fields: Record<string, number> = {};
  const names = layout.nodeFields.map((f) => f.name);
  for (const pair of pairs ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--field: expected NAME=VALUE, got "${pair}"`);
    const name = pair.slice(0, eq);
    const field = layout.nodeFields.find((f) => f.name === name);
    if (field === undefined) {
      throw new UsageError(
        `--field ${name}: layout "${layout.name}" has no node field "${name}"` +
          (names.length === 0 ? ' (it has none)' : ` (its node fields: ${names.join(', ')})`),
      );
    }
    if (name in fields) throw new UsageError(`--field ${name}: given twice`);
    fields[name] = integer(`--field ${name}`, pair.slice(eq + 1), 0, field.mask);
  }
  return fields;
}

/** `--workers MIN-MAX` or one ID, within the worker field's range `[0, max]`. */
export function workerRange(
  text: string | undefined,
  max: number,
): number | [number, number] | undefined {
  if (text === undefined) return undefined;
  const m = /^(-?\d+)(?:-(\d+))?$/.exec(text);
  if (m === null) throw new UsageError(`--workers: expected MIN-MAX or one ID, got "${text}"`);
  const min = integer('--workers', m[1]!, 0, max);
  return m[2] === undefined ? min : [min, integer('--workers', m[2], min, max)];
}

/** The default store when neither `--store` nor `$IDFORGE_STORE` names one. */
export const DEFAULT_STORE = 'sqlite:idforge.db';

/**
 * The `--store URL` lines of every store command's `--help` (gen, leases, migrate, seq): one
 * text, so each lists the same schemes and what each scheme holds.
 */
export const STORE_HELP = `  --store URL       where idforge keeps its state (default: $IDFORGE_STORE, else
                    ${DEFAULT_STORE}); each scheme and what it holds:
                      sqlite:PATH                    leases, segment tags, counter marks
                      file:PATH                      leases (a lease file on one host)
                      postgres://user@host:port/db   leases, segment tags, counter marks
                      mysql://user@host:port/db      segment tags
                      redis://host:port              leases, counters
                      etcd://host:port               leases
                    ?namespace=NAME keeps several applications apart in one store
`;

/** `--store URL`, else `$IDFORGE_STORE` from `io.env`, else {@link DEFAULT_STORE}. */
export function storeUrl(values: { store?: unknown }, io: Pick<CliIo, 'env'>): string {
  if (typeof values.store === 'string') {
    if (values.store === '') throw new UsageError('--store: expected a URL, got ""');
    return values.store;
  }
  return io.env?.IDFORGE_STORE || DEFAULT_STORE;
}

/** `--servers URL,URL`, else `$IDFORGE_TICKET_SERVERS`: a comma-separated list without repeats. */
export function serverList(values: { servers?: unknown }, io: Pick<CliIo, 'env'>): string[] {
  const text = typeof values.servers === 'string' ? values.servers : io.env?.IDFORGE_TICKET_SERVERS;
  if (text === undefined || text.trim() === '') {
    throw new UsageError('expected --servers URL,URL (or $IDFORGE_TICKET_SERVERS)');
  }
  const urls = text.split(',').map((u) => u.trim());
  if (urls.some((u) => u === '')) throw new UsageError(`--servers: empty entry in "${text}"`);
  const seen = new Set<string>();
  for (const u of urls) {
    // The same server twice would get two offsets and issue both residues: refuse.
    if (seen.has(u)) throw new UsageError(`--servers: "${u}" is listed twice`);
    seen.add(u);
  }
  return urls;
}

/** Refuses positional arguments beyond those a command takes. */
export function noArgs(positionals: readonly string[]): void {
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
}
