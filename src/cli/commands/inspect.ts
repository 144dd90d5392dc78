import {
  IdforgeError,
  INSPECT_SCHEMES,
  type Inspection,
  type InspectScheme,
  inspect,
} from '../../core/index.js';
import { type CliIo, collectInputs, LineWriter, UsageError } from '../io.js';

export const inspectHelp = `Usage: idforge inspect <id...> [options]

Detects each ID's scheme (UUID, ULID, KSUID or Snowflake) and decodes it: version and
variant, creation time, and the named fields of a Snowflake layout. A decimal number is
read as a Snowflake of --layout. Use - to read IDs from standard input.
Exit code 1 if any input is invalid.

Options:
  --scheme S      decode as S: uuid (any version), uuidv1, uuidv4, uuidv6, uuidv7
                  (the version must match), ulid, ksuid, snowflake
  --layout NAME   Snowflake layout (default "default"; see idforge layouts)
  --lenient       ULID: read I and L as 1 and O as 0, as Crockford intended
  --json          one JSON object per line per ID: input, scheme, version, unixMs,
                  timestamp, fields, error
`;

export interface InspectValues {
  scheme?: string;
  layout?: string;
  lenient?: boolean;
  json?: boolean;
}

function record(r: Inspection): Record<string, unknown> {
  const o: Record<string, unknown> = { input: r.input, scheme: r.scheme };
  if (r.version !== undefined) o.version = r.version;
  if (r.variant !== undefined) o.variant = r.variant;
  if (r.layout !== undefined) o.layout = r.layout;
  if (r.unixMs !== undefined) {
    o.unixMs = r.unixMs;
    o.timestamp = r.timestamp;
  }
  if (r.fields !== undefined) o.fields = r.fields;
  return o;
}

function table(r: Inspection): string[] {
  const rows: [string, string][] = [['input', r.input]];
  rows.push(['scheme', r.layout === undefined ? r.scheme : `${r.scheme} (layout ${r.layout})`]);
  if (r.version !== undefined) rows.push(['version', String(r.version)]);
  if (r.variant !== undefined) rows.push(['variant', r.variant]);
  if (r.unixMs !== undefined) {
    rows.push(['timestamp', r.timestamp ?? '']);
    rows.push(['unixMs', String(r.unixMs)]);
  }
  for (const [k, v] of Object.entries(r.fields ?? {})) rows.push([k, String(v)]);
  rows.push([
    r.scheme === 'ksuid' ? 'payload' : r.scheme === 'snowflake' ? 'value' : 'bytes',
    r.value,
  ]);
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`);
}

/** `idforge inspect <id...>`: returns the exit code. */
export async function inspectCommand(
  positionals: string[],
  values: InspectValues,
  io: CliIo,
): Promise<number> {
  if (
    values.scheme !== undefined &&
    !(INSPECT_SCHEMES as readonly string[]).includes(values.scheme)
  ) {
    throw new UsageError(
      `--scheme: expected one of ${INSPECT_SCHEMES.join(', ')}, got "${values.scheme}"`,
    );
  }
  const options = {
    ...(values.scheme === undefined ? {} : { scheme: values.scheme as InspectScheme }),
    ...(values.layout === undefined ? {} : { layout: values.layout }),
    lenient: values.lenient === true,
  };
  const inputs = await collectInputs(positionals, io);
  const out = new LineWriter(io.stdout);
  let failed = 0;
  inputs.forEach((input, i) => {
    let result: Inspection | undefined;
    let error: string | undefined;
    try {
      result = inspect(input, options);
    } catch (e) {
      if (!(e instanceof IdforgeError)) throw e;
      error = e.message;
      failed++;
    }
    if (values.json) {
      const o = result
        ? record(result)
        : { input, ...(options.scheme ? { scheme: options.scheme } : {}), error };
      out.line(JSON.stringify(o));
    } else if (result) {
      if (i > 0) out.line('');
      for (const line of table(result)) out.line(line);
    } else {
      out.flush();
      io.stderr.write(`idforge inspect: ${input}: ${error}\n`);
    }
  });
  out.flush();
  return failed > 0 ? 1 : 0;
}
