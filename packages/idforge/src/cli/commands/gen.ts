/** `idforge gen <scheme>`: IDs of a scheme, one per line or in another output format. */
import { createSnowflakeNode, type NodeLogger, type SnowflakeNode } from '../../coord/index.js';
import {
  InvalidIdError,
  KsuidGenerator,
  LAYOUTS,
  type Layout,
  parseSnowflake,
  SnowflakeGenerator,
  UlidGenerator,
  UuidV7Generator,
  uuidv4,
} from '../../core/index.js';
import { isTypeIdPrefix, TypeIdGenerator } from '../../public/index.js';
import { UINT64_MAX } from '../../snowflake/index.js';
import { uuidv4Bytes } from '../../uuid/index.js';
import {
  integer,
  layoutFlag,
  type Options,
  type OptionValues,
  parseFields,
  STORE_HELP,
  storeUrl,
  workerRange,
} from '../args.js';
import { type Id, IdOutput, outputFormat } from '../formats.js';
import { type CliHost, type Command, loadPackage, STORES_PACKAGE } from '../host.js';
import { type CliIo, UsageError } from '../io.js';

export const genHelp = `Usage: idforge gen <scheme> [options]

Generates identifiers, one per line (or one JSON array with --json). Schemes:
  uuidv4      random UUID (RFC 9562 version 4)
  uuidv7      time-ordered UUID (RFC 9562 version 7), strictly increasing in one run
  ulid        ULID (add --monotonic for strictly increasing within a millisecond)
  ksuid       KSUID (27 characters, second precision)
  snowflake   64-bit Snowflake ID of a layout; needs the node fields (no default)
  typeid      TypeID (jetify spec 0.3): --prefix, "_" and a UUIDv7 in 26 base32 digits,
              strictly increasing in one run (--format hex/base64: the UUID's 16 bytes)

Options:
  -n, --count N          how many (default 1, at most 10000000)
  --json                 one JSON array of strings (the same as --format json)
  --format F             text (default), json, hex or base64 (the ID's bytes)
  --layout NAME          Snowflake layout (default "default"; see idforge layouts)
  --node ID              Snowflake: the node field of layouts that have one ("default")
  --field NAME=VALUE     Snowflake: set a node field by name; repeat for each
                         (twitter-2010: --field datacenter=1 --field worker=3)
  --gene-from ID         Snowflake, a layout with a gene field (gene-8): take the gene from
                         this 64-bit ID's low bits, so every ID routes to that ID's shard
                         (shardOf(id, n) for n up to 2^geneBits); without it, random genes
  --gene N               Snowflake: the gene itself, 0 to 2^geneBits - 1
  --method M             uuidv7: counter (default), fraction or random (RFC 9562 §6.2)
  --monotonic            ulid: increment the randomness within a millisecond
  --prefix P             typeid: the type prefix, at most 63 of a-z and _, first and last
                         a letter (default none: the TypeID is the 26 digits alone)

Coordinated Snowflake (instead of --node): lease a free worker ID from a store, wait until
the clock is past its high-water mark, generate, record the mark and release the lease.
${STORE_HELP}  --workers MIN-MAX      worker IDs to choose from (default: the whole node field), or one ID
  --ttl-ms MS            lease TTL (default 10000); --ttl is the same (serve's name is --ttl-ms)
  --acquire-timeout-ms MS
                         wait this long for a free worker ID (default 0: fail at once);
                         --wait is the same (serve's name is --acquire-timeout-ms)
`;

const genOptions = {
  count: { type: 'string', short: 'n' },
  json: { type: 'boolean' },
  format: { type: 'string' },
  layout: { type: 'string' },
  node: { type: 'string' },
  field: { type: 'string', multiple: true },
  'gene-from': { type: 'string' },
  gene: { type: 'string' },
  method: { type: 'string' },
  monotonic: { type: 'boolean' },
  prefix: { type: 'string' },
  store: { type: 'string' },
  workers: { type: 'string' },
  ttl: { type: 'string' },
  wait: { type: 'string' },
  'ttl-ms': { type: 'string' },
  'acquire-timeout-ms': { type: 'string' },
} as const satisfies Options;

export type GenValues = OptionValues<typeof genOptions>;

/** `idforge gen <scheme>`. */
export const genCli: Command<typeof genOptions> = {
  summary: ['gen <scheme>', 'generate IDs: uuidv4, uuidv7, ulid, ksuid, snowflake, typeid'],
  help: genHelp,
  options: genOptions,
  run: genCommand,
};

/** A scheme's IDs in the form an output format wants (a 64-bit ID is the same in both). */
interface Source {
  text(): Id;
  bytes(): Id;
}

const METHODS = ['counter', 'fraction', 'random'];
const SCHEMES = 'uuidv4, uuidv7, ulid, ksuid, snowflake or typeid';

/** The largest count one `gen` prints. */
const MAX_COUNT = 10_000_000;

/** Size of the batches taken from a coordinated node (each waits for readiness if needed). */
const CHUNK = 65_536;

/** The node identity of `--node` and `--field`, checked against the layout in the CLI's words. */
function nodeFields(values: GenValues, layout: Layout): Record<string, number> {
  const fields = parseFields(values.field, layout);
  const names = layout.nodeFields.map((f) => f.name);
  if (values.node !== undefined) {
    const node = layout.nodeFields.find((f) => f.name === 'node');
    if (node === undefined) {
      throw new UsageError(
        `--node: layout "${layout.name}" has no field "node"; pass ` +
          names.map((n) => `--field ${n}=VALUE`).join(' '),
      );
    }
    if ('node' in fields) throw new UsageError('--node and --field node=VALUE: give one');
    fields.node = integer('--node', values.node, 0, node.mask);
  }
  return fields;
}

/** The gene of `--gene-from` or `--gene`, or undefined when neither is given. */
function geneOption(values: GenValues, layout: Layout): { gene: number } | undefined {
  const from = values['gene-from'];
  if (from === undefined && values.gene === undefined) return undefined;
  if (from !== undefined && values.gene !== undefined) {
    throw new UsageError('--gene-from and --gene: give one');
  }
  const flag = from === undefined ? '--gene' : '--gene-from';
  const field = layout.geneField;
  if (field === undefined) {
    const genes = Object.values(LAYOUTS).filter((l) => l.geneField !== undefined);
    throw new UsageError(
      `${flag}: layout "${layout.name}" has no gene field; the layouts with one: ` +
        `${genes.map((l) => `${l.name} (${l.geneField!.bits} bits)`).join(', ')} (--layout NAME)`,
    );
  }
  if (from === undefined) return { gene: integer('--gene', values.gene!, 0, field.mask) };
  try {
    return { gene: Number(parseSnowflake(from) & field.maskBig) };
  } catch (e) {
    if (!(e instanceof InvalidIdError)) throw e;
    throw new UsageError(
      `--gene-from: expected a 64-bit ID in decimal (0 to ${UINT64_MAX}): ${e.message}`,
    );
  }
}

function snowflakeSource(values: GenValues): Source {
  const layout = layoutFlag(values.layout);
  const gene = geneOption(values, layout);
  const fields = nodeFields(values, layout);
  const names = layout.nodeFields.map((f) => f.name);
  if (Object.keys(fields).length === 0 && names.length > 0) {
    const hint = names.includes('node')
      ? '--node ID'
      : names.map((n) => `--field ${n}=VALUE`).join(' ');
    throw new UsageError(
      `snowflake needs an explicit node identity for layout "${layout.name}": pass ${hint}. ` +
        'There is no default: two generators with the same node issue duplicate IDs.',
    );
  }
  const missing = names.filter((n) => !(n in fields));
  if (missing.length > 0) {
    throw new UsageError(
      `layout "${layout.name}" needs every node field: pass ` +
        missing.map((n) => `--field ${n}=VALUE`).join(' ') +
        ' (or --store URL to lease the last one)',
    );
  }
  const gen = new SnowflakeGenerator({ layout, fields });
  const next = () => gen.next(gene);
  return { text: next, bytes: next };
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
    case 'typeid': {
      const prefix = values.prefix ?? '';
      if (!isTypeIdPrefix(prefix)) {
        throw new UsageError(
          `--prefix: expected at most 63 of a-z and _, first and last a letter, got "${prefix}"`,
        );
      }
      const gen = new TypeIdGenerator({ prefix });
      return { text: () => gen.next(), bytes: () => gen.nextBytes() };
    }
    default:
      throw new UsageError(`unknown scheme "${scheme}": expected ${SCHEMES}`);
  }
}

/** `idforge gen <scheme>`: resolves to the exit code. */
export function genCommand(
  positionals: string[],
  values: GenValues,
  io: CliIo,
  host: CliHost = {},
): number | Promise<number> {
  const [scheme, ...extra] = positionals;
  values = {
    ...values,
    ttl: alias(values, 'ttl-ms', 'ttl'),
    wait: alias(values, 'acquire-timeout-ms', 'wait'),
  };
  if (scheme === undefined) throw new UsageError(`expected a scheme: ${SCHEMES}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const count = integer('--count', values.count ?? '1', 1, MAX_COUNT);
  const out = new IdOutput(outputFormat(values.format, values.json), io.stdout);
  if (values.method !== undefined && scheme !== 'uuidv7') {
    throw new UsageError('--method applies to uuidv7 only');
  }
  if (values.monotonic && scheme !== 'ulid')
    throw new UsageError('--monotonic applies to ulid only');
  if (values.prefix !== undefined && scheme !== 'typeid') {
    throw new UsageError('--prefix applies to typeid only');
  }
  const gene = values['gene-from'] !== undefined || values.gene !== undefined;
  if (
    (values.node !== undefined ||
      values.field !== undefined ||
      values.layout !== undefined ||
      gene) &&
    scheme !== 'snowflake'
  ) {
    throw new UsageError(
      '--layout, --node, --field, --gene-from and --gene apply to snowflake only',
    );
  }
  const coordinated = [values.store, values.workers, values.ttl, values.wait].some(
    (v) => v !== undefined,
  );
  if (coordinated) {
    if (scheme !== 'snowflake') throw new UsageError('--store applies to snowflake only');
    return genFromStore(values, count, out, io, host);
  }
  const src = source(scheme, values);
  const next = out.wants === 'text' ? src.text : src.bytes;
  for (let i = 0; i < count; i++) out.add(next());
  out.end();
  return 0;
}

/** `--NAME` or its older spelling `--OLD` (the same option; both given is a mistake). */
function alias(values: GenValues, name: 'ttl-ms' | 'acquire-timeout-ms', old: 'ttl' | 'wait') {
  if (values[name] !== undefined && values[old] !== undefined) {
    throw new UsageError(`--${name} and --${old} are the same option: give one`);
  }
  return values[name] ?? values[old];
}

/** `idforge gen snowflake --store URL`: IDs under a leased worker ID. */
async function genFromStore(
  values: GenValues,
  count: number,
  out: IdOutput,
  io: CliIo,
  host: CliHost,
): Promise<number> {
  if (values.store === undefined) {
    throw new UsageError('--workers, --ttl-ms and --acquire-timeout-ms need --store URL');
  }
  if (values.node !== undefined) {
    throw new UsageError('--node and --store exclude each other: the store assigns the node');
  }
  const layout = layoutFlag(values.layout);
  const gene = geneOption(values, layout);
  const lease = leaseOptions(values, layout);
  const url = storeUrl(values, io);
  const { openLeaseStore } = await loadPackage(STORES_PACKAGE, '--store', host.stores);
  const store = await openLeaseStore(url, {
    onCreate: (path) => io.stderr.write(`idforge: created a new lease store at ${path}\n`),
  });
  try {
    const node = await createSnowflakeNode({ store, ...lease, logger: stderrLogger(io) });
    try {
      await writeIds(node, count, gene, out);
    } finally {
      await node.close();
    }
  } finally {
    await store.close();
  }
  return 0;
}

/**
 * What `--field`, `--workers`, `--ttl-ms` and `--acquire-timeout-ms` ask of the coordinated
 * node: the node fields given, and the one free field the store leases, with its range.
 */
function leaseOptions(values: GenValues, layout: Layout) {
  const fields = parseFields(values.field, layout);
  const free = layout.nodeFields.filter((f) => !(f.name in fields));
  if (free.length !== 1) {
    throw new UsageError(
      `--store assigns one node field of layout "${layout.name}"; ` +
        (free.length === 0
          ? '--field sets them all: leave one out'
          : `give all but one with --field NAME=VALUE (${free.map((f) => f.name).join(', ')} are free)`),
    );
  }
  const workerIds = workerRange(values.workers, free[0]!.mask);
  const ttlMs =
    values.ttl === undefined ? undefined : integer('--ttl-ms', values.ttl, 100, 2 ** 31);
  const acquireTimeoutMs =
    values.wait === undefined ? 0 : integer('--acquire-timeout-ms', values.wait, 0, 2 ** 31);
  return {
    layout,
    fields,
    ...(workerIds === undefined ? {} : { workerIds }),
    ...(ttlMs === undefined ? {} : { ttlMs }),
    acquireTimeoutMs,
  };
}

/** The coordinated node's messages, one line each on standard error. */
function stderrLogger(io: CliIo): NodeLogger {
  return {
    info: (m) => io.stderr.write(`${m}\n`),
    warn: (m) => io.stderr.write(`${m}\n`),
    error: (m) => io.stderr.write(`${m}\n`),
  };
}

/** `count` IDs of a coordinated node, in batches (each waits for readiness if needed). */
async function writeIds(
  node: SnowflakeNode,
  count: number,
  gene: { gene: number } | undefined,
  out: IdOutput,
): Promise<void> {
  for (let done = 0; done < count; ) {
    // The given gene on every ID; none on a gene layout: a random gene per ID.
    const ids = await node.batchAsync(Math.min(CHUNK, count - done), undefined, gene);
    done += ids.length;
    for (const id of ids) out.add(id);
  }
  out.end();
}
