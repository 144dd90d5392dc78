/**
 * The Snowflake's descriptor: a 64-bit ID of a layout (default `default`), written as 1 to 20
 * decimal digits; inspect also takes it as a `bigint`. The service's come from its node (a
 * leased worker), `idforge gen`'s from a node identity the CLI reads from its flags or a store.
 * HLC IDs (idforge/hlc) are written the same way, as 63-bit decimal integers.
 */

import { decompose, isSnowflake, parseSnowflake } from '../snowflake/codec.js';
import { SnowflakeGenerator } from '../snowflake/generator.js';
import type { Layout } from '../snowflake/layout.js';
import { getLayout } from '../snowflake/presets.js';
import type { Decoded, DecodeOptions, SchemeDescriptor } from './descriptor.js';

/** Whether `text` is 1 to 20 ASCII digits. */
function isDecimal20(text: string): boolean {
  if (text.length === 0 || text.length > 20) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

const DEFAULT_LAYOUT = /* @__PURE__ */ getLayout('default');

/** `input` is the ID's text: its decimal form when `id` is given, else to be parsed. */
function inspectSnowflake(input: string, id: bigint | undefined, options: DecodeOptions) {
  const layout =
    typeof options.layout === 'object'
      ? options.layout
      : options.layout === undefined
        ? DEFAULT_LAYOUT
        : getLayout(options.layout);
  const value = id === undefined ? parseSnowflake(input, layout) : id;
  const d = decompose(layout as Layout, value);
  return {
    input,
    scheme: 'snowflake',
    value: input, // parseSnowflake accepts the one decimal form only, as toString() gives
    hex: value.toString(16).padStart(16, '0'),
    unixMs: d.unixMs,
    timestamp: new Date(d.unixMs).toISOString(),
    layout: layout.name,
    fields: d.fields,
  } satisfies Decoded;
}

export const snowflakeScheme = {
  name: 'snowflake',
  title: 'Snowflake',
  service: { valid: (id: string) => isSnowflake(id) },
  inspect: {
    family: 'snowflake',
    hints: ['snowflake'],
    shape: 'a Snowflake (1 to 20 decimal digits)',
    detect: isDecimal20,
    decode: (input: string, _hint: string, options: DecodeOptions): Decoded =>
      inspectSnowflake(input, undefined, options),
    decodeBigint: (id: bigint, options: DecodeOptions): Decoded =>
      inspectSnowflake(id.toString(), id, options),
  },
  gen: { help: '64-bit Snowflake ID of a layout; needs the node fields (no default)' },
  bench: [
    {
      name: 'snowflake',
      kind: 'int64',
      keys: () => {
        const gen = new SnowflakeGenerator({ node: 1 });
        return () => gen.next();
      },
    },
  ],
} as const satisfies SchemeDescriptor;

/** Hybrid logical clock IDs (idforge/hlc): the service's clock makes them. */
export const hlcScheme = {
  name: 'hlc',
  title: 'HLC',
  service: { valid: (id: string) => isSnowflake(id) },
} as const satisfies SchemeDescriptor;
