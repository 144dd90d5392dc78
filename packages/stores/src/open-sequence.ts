/**
 * Sequences by URL: where the numbers of a tag come from (a segment table, or counters under
 * durable marks: the registry says which a scheme keeps) and the buffered sequence over it,
 * opened through the store openers of open.ts. The service, the CLI and the library's users
 * open sequences only here.
 */
import type {
  CounterSourceOptions,
  DurableMarkStore,
  SegmentBuffer,
  SegmentSequenceOptions,
  SequenceSource,
} from 'idforge/sequences';
import { counterSource, DEFAULT_STORE_URL, segmentSource } from 'idforge/sequences';
import type { Migratable, OpenStoreOptions } from './backend.js';
import { backendOpens } from './backends.js';
import { openCounterStore, openMarkStore, openSegmentStore } from './open.js';
import { storeScheme } from './url.js';

/** Options of {@link openSequenceSource}. */
export interface OpenSequenceSourceOptions
  extends Pick<OpenStoreOptions, 'connectTimeoutMs' | 'onCreate' | 'create' | 'autoMigrate'>,
    CounterSourceOptions {
  /**
   * Counters: where the durable marks live (a store that opens marks: sqlite: or
   * postgres://). Default sqlite:idforge.db, the embedded default; the library reads no
   * environment variable (the CLI passes $IDFORGE_STORE itself).
   */
  readonly marks?: string;
  /** Create the tables (segments, marks) if missing, as `idforge migrate` would. Default false. */
  readonly migrate?: boolean;
}

/**
 * Where the numbers of `url` come from: a segment store (sqlite:, postgres://, mysql://) or
 * counters (redis://) under the durable marks of `options.marks`. The one way the service,
 * the CLI and {@link openSequence} open sequences. `create` and `autoMigrate` apply to a
 * segment store (false for a read-only opening: a missing sqlite: file is then
 * `StorePathError`); a mark store is created on first use. Rejects as
 * {@link openSegmentStore}; nothing stays open when it rejects.
 */
export async function openSequenceSource(
  url: string,
  options: OpenSequenceSourceOptions = {},
): Promise<SequenceSource> {
  const {
    marks,
    migrate = false,
    connectTimeoutMs,
    onCreate,
    create,
    autoMigrate,
    ...counter
  } = options;
  const open = defined({ connectTimeoutMs, onCreate });
  const scheme = storeScheme(url);
  if (!backendOpens(scheme, 'counters')) {
    const store = await openSegmentStore(url, { ...open, ...defined({ create, autoMigrate }) });
    await migrateOrClose(migrate, store);
    return segmentSource(store);
  }
  const counters = await openCounterStore(url, open);
  let markStore: DurableMarkStore;
  try {
    markStore = await openMarkStore(marks ?? DEFAULT_STORE_URL, open);
  } catch (error) {
    await counters.close();
    throw error;
  }
  await migrateOrClose(migrate, markStore, counters);
  return counterSource(counters, markStore, counter);
}

/** `store.migrate()` when asked; on failure closes the store (and `others`) and rejects. */
async function migrateOrClose(
  migrate: boolean,
  store: Migratable,
  ...others: { close(): Promise<void> }[]
): Promise<void> {
  if (!migrate) return;
  try {
    await store.migrate();
  } catch (error) {
    await Promise.all([store, ...others].map((s) => s.close().catch(() => undefined)));
    throw error;
  }
}

/** Options of {@link openSequence}: the source's and the buffer's. */
export type OpenSequenceOptions = OpenSequenceSourceOptions & SegmentSequenceOptions;

/** A sequence and what closes it with its stores. */
export interface OpenedSequence {
  readonly sequence: SegmentBuffer;
  close(): Promise<void>;
}

/**
 * The sequence of `tag` in the store `url` ({@link openSequenceSource}), with its first block
 * loaded. Rejects with `UnknownTagError` (segment tables: the tag was never created),
 * `StoreUnavailableError`; nothing stays open when it rejects.
 */
export async function openSequence(
  url: string,
  tag: string,
  options: OpenSequenceOptions = {},
): Promise<OpenedSequence> {
  const { source: sourceOptions, buffer } = splitSequenceOptions(options);
  const source = await openSequenceSource(url, sourceOptions);
  try {
    const sequence = await source.open(tag, buffer);
    return {
      sequence,
      close: async () => {
        sequence.close();
        await source.close();
      },
    };
  } catch (error) {
    await source.close();
    throw error;
  }
}

/** Every option of the source (the compiler checks none is missing); the rest are the buffer's. */
const SOURCE_OPTIONS: Record<keyof OpenSequenceSourceOptions, true> = {
  marks: true,
  migrate: true,
  connectTimeoutMs: true,
  onCreate: true,
  create: true,
  autoMigrate: true,
  blockSize: true,
  maxTags: true,
  onRegression: true,
  reseedMargin: true,
  maxReseeds: true,
  logger: true,
};

function splitSequenceOptions(options: OpenSequenceOptions): {
  source: OpenSequenceSourceOptions;
  buffer: SegmentSequenceOptions;
} {
  const source: Record<string, unknown> = {};
  const buffer: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    (Object.hasOwn(SOURCE_OPTIONS, key) ? source : buffer)[key] = value;
  }
  return { source, buffer };
}

/** The entries of `o` whose value is not undefined (for options under exactOptionalPropertyTypes). */
function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
