/**
 * The CLI's argument parsers: numbers, bigints, tags, Snowflake fields, worker ranges and store
 * URLs, and the command line itself ({@link parseCommandLine}). Each throws {@link UsageError}
 * in the tool's own words, naming the option as the command line spells it (`--count`,
 * `--field worker`) and, for a number, the range it must lie in.
 * The environment comes in through {@link CliIo.env}; nothing here reads the process environment.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { getLayout, type Layout, PRESET_NAMES } from '../core/index.js';
import { assertTag, assertTicketTag, DEFAULT_STORE_URL } from '../sequences/index.js';
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

/**
 * The default store when neither `--store` nor `$IDFORGE_STORE` names one: the library's one
 * {@link DEFAULT_STORE_URL} (`sqlite:idforge.db`), which @idforge/stores and the service use too.
 */
export const DEFAULT_STORE = DEFAULT_STORE_URL;

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

/** The option table of a command, as parseArgs takes it. */
export type Options = NonNullable<ParseArgsConfig['options']>;

/** What parseArgs gives one option `C`: a string, a switch, or a list of either (`multiple`). */
type OptionValue<C> = C extends { readonly multiple: true }
  ? C extends { readonly type: 'boolean' }
    ? boolean[]
    : string[]
  : C extends { readonly type: 'boolean' }
    ? boolean
    : string;

/**
 * The values of a command line read against the option table `O`, derived from it: each option
 * is an optional property (absent when not given) of its parseArgs type, a `type: 'string'`
 * one `string | undefined`, `type: 'boolean'` `boolean | undefined`, `multiple: true`
 * `string[] | undefined`. Declare a table `as const satisfies Options` and its handler reads
 * only the options it declares, each with its own type. A table only known at run time (its
 * keys are all of `string`) gives `Record<string, unknown>`.
 */
export type OptionValues<O extends Options> = string extends keyof O
  ? Record<string, unknown>
  : { -readonly [K in keyof O]?: OptionValue<O[K]> };

/**
 * The command line of `idforge <command>` read against the command's `options` (plus
 * `-h, --help`), every mistake a {@link UsageError} in idforge's words: an unknown flag (with
 * "did you mean --x?" for a close flag of this command), a missing value, a value on a switch.
 * This is the one place that calls parseArgs: none of its ERR_PARSE_ARGS_* texts reaches the
 * user. A negative number after an option that takes a value (`-n -1`) is that option's value,
 * so the option's own check says its range.
 */
export function parseCommandLine<O extends Options>(
  args: readonly string[],
  options: O,
): { values: OptionValues<O> & { help?: boolean }; positionals: string[] } {
  const all: Options = { ...options, help: { type: 'boolean', short: 'h' } };
  const config = { args: negativeValues(args, all), options: all, allowPositionals: true };
  const { tokens } = parseArgs({ ...config, strict: false, tokens: true });
  for (const t of tokens) if (t.kind === 'option') checkOption(t, all);
  try {
    const { values, positionals } = parseArgs({ ...config, strict: true });
    // The values parseArgs read against `all`: `options`' values and `help`, as typed.
    return { values: values as OptionValues<O> & { help?: boolean }, positionals };
  } catch (e) {
    // checkOption refuses all parseArgs refuses; should a later Node refuse more, say so plainly.
    if (!String((e as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) throw e;
    throw new UsageError(`cannot read the arguments ${JSON.stringify(args.join(' '))}`);
  }
}

interface OptionToken {
  readonly name: string;
  readonly rawName: string;
  readonly value: string | undefined;
  readonly inlineValue: boolean | undefined;
}

function checkOption(t: OptionToken, options: Options): void {
  const spec = Object.hasOwn(options, t.name) ? options[t.name] : undefined;
  if (spec === undefined) {
    const hint = t.rawName.startsWith('--') ? closeFlag(t.name, options) : undefined;
    throw new UsageError(
      `unknown flag "${t.rawName}"${hint === undefined ? '' : ` (did you mean ${hint}?)`}`,
    );
  }
  const flag = `--${t.name}${spec.short === undefined ? '' : ` (-${spec.short})`}`;
  if (spec.type === 'boolean') {
    if (t.value !== undefined)
      throw new UsageError(`--${t.name} takes no value, got "${t.rawName}=${t.value}"`);
    return;
  }
  if (t.value === undefined) throw new UsageError(`${flag}: expected a value, got none`);
  if (!t.inlineValue && t.value.startsWith('-') && t.value !== '-') {
    throw new UsageError(
      `${flag}: expected a value, got the flag "${t.value}" (a value starting with - is written --${t.name}=VALUE)`,
    );
  }
}

/**
 * The preset `--layout NAME` names (`default` when not given). A name that is no preset is a
 * usage error naming the close one, as an unknown flag is: a typo such as "twiter-2010"
 * otherwise reads as an unknown layout with no hint of which was meant.
 */
export function layoutFlag(name: string | undefined): Layout {
  if (name === undefined || PRESET_NAMES.includes(name)) return getLayout(name ?? 'default');
  const near = closest(name, PRESET_NAMES);
  throw new UsageError(
    `--layout: unknown layout "${name}"${near.length === 0 ? '' : ` (did you mean ${near.join(' or ')}?)`}; ` +
      `one of ${PRESET_NAMES.join(', ')} (idforge layouts)`,
  );
}

/**
 * The flag of `options` closest to `name` (an unknown flag without its dashes): within an edit
 * distance of one per three letters (a typo, a swapped pair), or the one flag it begins; a
 * `--format` where the command's JSON switch is `--json` points there.
 */
function closeFlag(name: string, options: Options): string | undefined {
  const names = Object.keys(options);
  if (name === 'format' && names.includes('json')) return '--json';
  const found = closest(name, names);
  return found.length === 0 ? undefined : found.map((f) => `--${f}`).join(' or ');
}

/**
 * The words of `words` closest to `word` (see {@link closeFlag}): every one at the smallest
 * distance, so a typo as close to two words names both ("sqe": seq or sql); none when no word
 * is close.
 */
export function closest(word: string, words: readonly string[]): string[] {
  let best: string[] = [];
  let bestDistance = Math.max(1, Math.ceil(word.length / 3)) + 1;
  for (const w of words) {
    const d = distance(word, w);
    if (d < bestDistance) [best, bestDistance] = [[w], d];
    else if (d === bestDistance && best.length > 0) best.push(w);
  }
  if (best.length > 0) return best.sort();
  const starts = words.filter((w) => word.length >= 3 && w.startsWith(word));
  return starts.length === 1 ? starts : [];
}

/** Edit distance counting a swap of two neighbours as one edit (optimal string alignment). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** `-n -1` as `--count=-1`: parseArgs would read the negative number as a flag. */
function negativeValues(args: readonly string[], options: Options): string[] {
  const takesValue = new Map<string, string>();
  for (const [long, o] of Object.entries(options)) {
    if (o.type !== 'string') continue;
    takesValue.set(`--${long}`, long);
    if (o.short !== undefined) takesValue.set(`-${o.short}`, long);
  }
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      out.push(...args.slice(i));
      break;
    }
    const long = takesValue.get(a);
    const next = args[i + 1];
    if (long !== undefined && next !== undefined && /^-[0-9]/.test(next)) {
      out.push(`--${long}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}
