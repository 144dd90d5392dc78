import {
  IdforgeError,
  INSPECT_SCHEMES,
  type Inspection,
  type InspectScheme,
  inspect,
} from '../../core/index.js';
import { parseTypeId, typeIdToUuid } from '../../public/index.js';
import { layoutFlag, type Options, type OptionValues } from '../args.js';
import type { Command } from '../host.js';
import { type CliIo, collectInputs, excerpt, LineWriter, UsageError } from '../io.js';

export const inspectHelp = `Usage: idforge inspect <id...> [options]

Detects each ID's scheme (UUID, ULID, KSUID, Snowflake or TypeID) and decodes it: version
and variant (or Nil/Max), creation time, the named fields of a Snowflake layout, a TypeID's
prefix and UUID. A UUID may be written with hyphens, as 32 hex digits, as {…} or as
urn:uuid:…. A decimal number is read as a Snowflake of --layout. An ID with "_" is read as
a TypeID; one without a prefix is the same 26 digits as a lower-case ULID (and the same
128 bits): pass --scheme typeid to read it as a TypeID. Use - to read IDs from standard input (whitespace-separated;
each is trimmed); an argument is taken exactly as given (surrounding spaces are an error).
Exit code 1 if any input is invalid.

Options:
  --scheme S      decode as S: uuid (any version), uuidv1, uuidv4, uuidv6, uuidv7
                  (the version must match), ulid, ksuid, snowflake, typeid
  --layout NAME   Snowflake layout (default "default"; see idforge layouts)
  --lenient       ULID: read I and L as 1 and O as 0, as Crockford intended
  --json          one JSON object per line per ID: input (as given), scheme, value
                  (canonical form), hex, prefix and uuid (TypeID), special (nil|max),
                  version, variant, layout, unixMs, timestamp, fields, hint, or error
`;

/** A Snowflake time this far past now reads as "the layout is probably wrong". */
const FUTURE_SLACK_MS = 24 * 3600 * 1000;

const inspectOptions = {
  scheme: { type: 'string' },
  layout: { type: 'string' },
  lenient: { type: 'boolean' },
  json: { type: 'boolean' },
} as const satisfies Options;

export type InspectValues = OptionValues<typeof inspectOptions>;

/** `idforge inspect <id...>`. */
export const inspectCli: Command<typeof inspectOptions> = {
  summary: ['inspect <id...>', 'detect the scheme of IDs and decode them (time, version, fields)'],
  help: inspectHelp,
  options: inspectOptions,
  run: inspectCommand,
};

/** What the core's inspect finds, or a TypeID (idforge/public): its prefix and UUID too. */
type Shown = Omit<Inspection, 'scheme'> & {
  readonly scheme: Inspection['scheme'] | 'typeid';
  readonly prefix?: string;
  readonly uuid?: string;
};

/** A TypeID decoded: its UUID inspected as a UUID (version, variant, time), then relabelled. */
function inspectTypeId(input: string): Shown {
  const { prefix } = parseTypeId(input);
  const uuid = typeIdToUuid(input);
  const u = inspect(uuid, { scheme: 'uuid' });
  return { ...u, input, scheme: 'typeid', value: input, prefix, uuid };
}

function record(r: Shown, hint: string | undefined): Record<string, unknown> {
  const o: Record<string, unknown> = { input: r.input, scheme: r.scheme, value: r.value };
  o.hex = r.hex;
  if (r.prefix !== undefined) o.prefix = r.prefix;
  if (r.uuid !== undefined) o.uuid = r.uuid;
  if (r.special !== undefined) o.special = r.special;
  if (r.version !== undefined) o.version = r.version;
  if (r.variant !== undefined) o.variant = r.variant;
  if (r.layout !== undefined) o.layout = r.layout;
  if (r.unixMs !== undefined) {
    o.unixMs = r.unixMs;
    o.timestamp = r.timestamp;
  }
  if (r.fields !== undefined) o.fields = r.fields;
  if (hint !== undefined) o.hint = hint;
  return o;
}

const SPECIAL = { nil: 'Nil UUID (RFC 9562 §5.9)', max: 'Max UUID (RFC 9562 §5.10)' };

function table(r: Shown): string[] {
  const rows: [string, string][] = [['input', r.input]];
  rows.push(['scheme', r.layout === undefined ? r.scheme : `${r.scheme} (layout ${r.layout})`]);
  if (r.prefix !== undefined) rows.push(['prefix', r.prefix === '' ? '(none)' : r.prefix]);
  if (r.uuid !== undefined) rows.push(['uuid', r.uuid]);
  if (r.special !== undefined) rows.push(['special', SPECIAL[r.special]]);
  if (r.version !== undefined) rows.push(['version', String(r.version)]);
  if (r.variant !== undefined) rows.push(['variant', r.variant]);
  if (r.unixMs !== undefined) {
    rows.push(['timestamp', r.timestamp ?? '']);
    rows.push(['unixMs', String(r.unixMs)]);
  }
  for (const [k, v] of Object.entries(r.fields ?? {})) rows.push([k, String(v)]);
  rows.push(['value', r.value]);
  rows.push(['hex', r.hex]);
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`);
}

/** A hint when a Snowflake's time lies in the future under the layout it was read with. */
function futureHint(r: Shown, explicit: boolean, nowMs: number): string | undefined {
  if (r.scheme !== 'snowflake' || r.unixMs === undefined || r.unixMs <= nowMs + FUTURE_SLACK_MS) {
    return undefined;
  }
  return (
    `its time ${r.timestamp} lies in the future under layout "${r.layout}"` +
    (explicit ? '; is it from another layout?' : '') +
    ' Pass --layout NAME (see idforge layouts).'
  );
}

/** `idforge inspect <id...>`: returns the exit code. */
export async function inspectCommand(
  positionals: string[],
  values: InspectValues,
  io: CliIo,
): Promise<number> {
  const schemes = [...INSPECT_SCHEMES, 'typeid'];
  if (values.scheme !== undefined && !schemes.includes(values.scheme)) {
    throw new UsageError(`--scheme: expected one of ${schemes.join(', ')}, got "${values.scheme}"`);
  }
  const typeIdHint = values.scheme === 'typeid';
  const options = {
    ...(values.scheme === undefined || typeIdHint
      ? {}
      : { scheme: values.scheme as InspectScheme }),
    ...(values.layout === undefined ? {} : { layout: layoutFlag(values.layout).name }),
    lenient: values.lenient === true,
  };
  const inputs = await collectInputs(positionals, io);
  const out = new LineWriter(io.stdout);
  let failed = 0;
  const nowMs = Date.now();
  inputs.forEach((input, i) => {
    let result: Shown | undefined;
    let error: string | undefined;
    try {
      const asTypeId = typeIdHint || (values.scheme === undefined && input.includes('_'));
      result = asTypeId ? inspectTypeId(input) : inspect(input, options);
    } catch (e) {
      if (!(e instanceof IdforgeError)) throw e;
      error = e.message;
      failed++;
    }
    const hint = result && futureHint(result, values.layout !== undefined, nowMs);
    if (values.json) {
      const o = result
        ? record(result, hint)
        : {
            input: excerpt(input),
            ...(input.length > 100 ? { inputLength: input.length } : {}),
            ...(values.scheme ? { scheme: values.scheme } : {}),
            error,
          };
      out.line(JSON.stringify(o));
    } else if (result) {
      if (i > 0) out.line('');
      for (const line of table(result)) out.line(line);
      if (hint !== undefined) {
        out.flush();
        io.stderr.write(`idforge inspect: ${result.input}: hint: ${hint}\n`);
      }
    } else {
      out.flush();
      io.stderr.write(`idforge inspect: ${excerpt(input)}: ${error}\n`);
    }
  });
  out.flush();
  return failed > 0 ? 1 : 0;
}
