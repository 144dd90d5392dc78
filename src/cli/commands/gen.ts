import { Buffer } from 'node:buffer';
import {
  getLayout,
  KsuidGenerator,
  SnowflakeGenerator,
  UlidGenerator,
  UuidV7Generator,
  uuidv4,
  uuidv4Bytes,
} from '../../core/index.js';
import { type CliIo, LineWriter, UsageError } from '../io.js';
import { genFromStore } from './gen-store.js';

export const genHelp = `Usage: idforge gen <scheme> [options]

Generates identifiers, one per line (or a JSON array). Schemes:
  uuidv4      random UUID (RFC 9562 version 4)
  uuidv7      time-ordered UUID (RFC 9562 version 7), strictly increasing in one run
  ulid        ULID (add --monotonic for strictly increasing within a millisecond)
  ksuid       KSUID (27 characters, second precision)
  snowflake   64-bit Snowflake ID of a layout; needs the node fields (no default)

Options:
  -n, --count N          how many (default 1, at most 10000000)
  --format F             text (default), json (array of strings), hex or base64 (the bytes)
  --layout NAME          Snowflake layout (default "default"; see idforge layouts)
  --node ID              Snowflake: the node field of layouts that have one ("default")
  --field NAME=VALUE     Snowflake: set a node field by name; repeat for each
                         (twitter-2010: --field datacenter=1 --field worker=3)
  --method M             uuidv7: counter (default), fraction or random (RFC 9562 §6.2)
  --monotonic            ulid: increment the randomness within a millisecond

Coordinated Snowflake (instead of --node): lease a free worker ID from a store, wait until
the clock is past its high-water mark, generate, record the mark and release the lease.
  --store URL            sqlite:PATH, postgres://..., redis://... or etcd://host:port
  --workers MIN-MAX      worker IDs to choose from (default: the whole node field), or one ID
  --ttl MS               lease TTL (default 10000)
  --wait MS              wait this long for a free worker ID (default 0: fail at once)
`;

export interface GenValues {
  count?: string;
  format?: string;
  layout?: string;
  node?: string;
  field?: string[];
  method?: string;
  monotonic?: boolean;
  store?: string;
  workers?: string;
  ttl?: string;
  wait?: string;
}

interface Source {
  text(): string;
  bytes(): Uint8Array;
}

const FORMATS = ['text', 'json', 'hex', 'base64'];
const METHODS = ['counter', 'fraction', 'random'];

export function integer(name: string, text: string, min: number, max: number): number {
  if (!/^[0-9]+$/.test(text)) throw new UsageError(`${name}: expected an integer, got "${text}"`);
  const n = Number(text);
  if (n < min || n > max) throw new UsageError(`${name}: expected ${min} to ${max}, got ${text}`);
  return n;
}

/** The --field NAME=VALUE pairs as an object. */
export function parseFields(pairs: readonly string[] | undefined): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const pair of pairs ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--field: expected NAME=VALUE, got "${pair}"`);
    fields[pair.slice(0, eq)] = integer(
      `--field ${pair.slice(0, eq)}`,
      pair.slice(eq + 1),
      0,
      2 ** 32,
    );
  }
  return fields;
}

function snowflakeSource(values: GenValues): Source {
  const layout = getLayout(values.layout ?? 'default');
  const fields = parseFields(values.field);
  const nodeNames = layout.nodeFields.map((f) => f.name);
  if (values.node === undefined && Object.keys(fields).length === 0) {
    const hint = nodeNames.includes('node')
      ? '--node ID'
      : nodeNames.map((n) => `--field ${n}=VALUE`).join(' ');
    throw new UsageError(
      `snowflake needs an explicit node identity for layout "${layout.name}": pass ${hint}. ` +
        'There is no default: two generators with the same node issue duplicate IDs.',
    );
  }
  const gen = new SnowflakeGenerator({
    layout,
    ...(values.node === undefined ? {} : { node: integer('--node', values.node, 0, 2 ** 32) }),
    fields,
  });
  const bytes = new Uint8Array(8);
  const view = new DataView(bytes.buffer);
  return {
    text: () => gen.next().toString(),
    bytes: () => {
      view.setBigUint64(0, gen.next());
      return bytes.slice();
    },
  };
}

function source(scheme: string, values: GenValues): Source {
  switch (scheme) {
    case 'uuidv4':
      return { text: uuidv4, bytes: () => uuidv4Bytes() };
    case 'uuidv7': {
      const method = (values.method ?? 'counter') as 'counter' | 'fraction' | 'random';
      if (!METHODS.includes(method)) {
        throw new UsageError(`--method: expected one of ${METHODS.join(', ')}, got "${method}"`);
      }
      const gen = new UuidV7Generator({ method });
      return { text: () => gen.next(), bytes: () => gen.nextBytes() };
    }
    case 'ulid': {
      const gen = new UlidGenerator({ monotonic: values.monotonic === true });
      return { text: () => gen.next(), bytes: () => gen.nextBytes() };
    }
    case 'ksuid': {
      const gen = new KsuidGenerator();
      return { text: () => gen.next(), bytes: () => gen.nextBytes() };
    }
    case 'snowflake':
      return snowflakeSource(values);
    default:
      throw new UsageError(
        `unknown scheme "${scheme}": expected uuidv4, uuidv7, ulid, ksuid or snowflake`,
      );
  }
}

/** `idforge gen <scheme>`: resolves to the exit code. */
export function genCommand(
  positionals: string[],
  values: GenValues,
  io: CliIo,
): number | Promise<number> {
  const [scheme, ...extra] = positionals;
  if (scheme === undefined) throw new UsageError('gen: expected a scheme');
  if (extra.length > 0) throw new UsageError(`gen: unexpected argument "${extra[0]}"`);
  const count = integer('--count', values.count ?? '1', 1, 10_000_000);
  const format = values.format ?? 'text';
  if (!FORMATS.includes(format)) {
    throw new UsageError(`--format: expected one of ${FORMATS.join(', ')}, got "${format}"`);
  }
  if (values.method !== undefined && scheme !== 'uuidv7') {
    throw new UsageError('--method applies to uuidv7 only');
  }
  if (values.monotonic && scheme !== 'ulid')
    throw new UsageError('--monotonic applies to ulid only');
  if (
    (values.node !== undefined || values.field !== undefined || values.layout !== undefined) &&
    scheme !== 'snowflake'
  ) {
    throw new UsageError('--layout, --node and --field apply to snowflake only');
  }
  if (values.store !== undefined || values.workers !== undefined) {
    if (scheme !== 'snowflake') throw new UsageError('--store applies to snowflake only');
    return genFromStore(values, count, format, io);
  }
  const src = source(scheme, values);
  const out = new LineWriter(io.stdout);
  if (format === 'json') {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(src.text());
    io.stdout.write(`${JSON.stringify(ids)}\n`);
    return 0;
  }
  for (let i = 0; i < count; i++) {
    if (format === 'text') out.line(src.text());
    else out.line(Buffer.from(src.bytes()).toString(format === 'hex' ? 'hex' : 'base64'));
  }
  out.flush();
  return 0;
}
