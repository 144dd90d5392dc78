/**
 * Inspect: detect an identifier's scheme from its text (or take a hint) and decode it to a
 * typed record. Malformed input throws {@link InvalidIdError} naming what is wrong (length,
 * alphabet, version, variant, overflow, range); it never returns a guess.
 *
 * Detection by shape, in the registry's order (./schemes/registry.ts): each scheme's
 * descriptor says which texts have its shape and decodes them; a `bigint` is a Snowflake of
 * the given layout (default `default`).
 *
 * Whitespace policy (every scheme, every parser of idforge): surrounding whitespace is
 * rejected, never trimmed; the input is echoed in `input` exactly as given. Callers that read
 * lines (the CLI's standard input) trim them explicitly first.
 */
import { assertBoolean, assertOneOf, typeError } from './assert.js';
import { InvalidIdError } from './errors.js';
import type { Decoded, DecodeOptions, SchemeInspector, UuidSpecial } from './schemes/descriptor.js';
import {
  type InspectFamily,
  type InspectHint,
  inspectHints,
  inspectors,
  listInWords,
  SCHEMES,
} from './schemes/registry.js';

/** Scheme hints accepted by {@link inspect}; `uuidvN` also requires that version. */
export const INSPECT_SCHEMES: readonly InspectHint[] = /* @__PURE__ */ Object.freeze(
  /* @__PURE__ */ inspectHints(SCHEMES) as InspectHint[],
);

export type InspectScheme = InspectHint;

/** Options of {@link inspect}: a descriptor's decoding options, and the scheme hint. */
export interface InspectOptions extends DecodeOptions {
  /** Decode as this scheme instead of detecting it. */
  readonly scheme?: InspectScheme;
}

export type { UuidSpecial };

/** What {@link inspect} found: a descriptor's `Decoded`, of a registered scheme. */
export interface Inspection extends Decoded<InspectFamily> {}

/** The inspectors, in detection order, and the one that reads each hint. */
const INSPECTORS: readonly SchemeInspector[] = /* @__PURE__ */ inspectors(SCHEMES);

function inspectorOf(hint: string): SchemeInspector {
  return INSPECTORS.find((i) => i.hints.includes(hint))!;
}

/** The inspector of the first scheme whose shape `text` has; throws when none has. */
function detect(text: string): SchemeInspector {
  for (const i of INSPECTORS) if (i.detect(text)) return i;
  throw new InvalidIdError(
    'identifier',
    'scheme',
    `cannot tell the scheme of ${text.length} characters: expected ` +
      `${listInWords(INSPECTORS.map((i) => i.shape))}; pass a scheme to decode as one`,
    text,
  );
}

/** The index of leading or trailing whitespace (as `\s` matches it) in `input`, or -1. */
function whitespaceAt(input: string): number {
  const n = input.length;
  if (n === 0) return -1;
  const first = input.charCodeAt(0);
  const last = input.charCodeAt(n - 1);
  // Printable ASCII at both ends, as in every ID: no regular expression to run.
  if (first > 32 && first < 127 && last > 32 && last < 127) return -1;
  const ws = /^\s|\s$/.exec(input);
  return ws === null ? -1 : ws.index;
}

/**
 * Detects (or, with `options.scheme`, checks) the scheme of `input` and decodes it. A
 * `bigint` is a Snowflake (of `options.layout`). Surrounding whitespace is an error, never
 * trimmed. Nil and Max UUIDs are reported as `special: 'nil' | 'max'`, without version and
 * variant (they have neither).
 *
 * Throws {@link InvalidIdError} when the input is not a valid identifier of that scheme:
 * `reason` is one of 'scheme' (no scheme fits), 'length', 'alphabet', 'format' (also for
 * surrounding whitespace), 'version', 'variant', 'overflow', 'range'. Throws
 * `TypeError`/`RangeError` on a wrong argument (not a string or bigint, an unknown scheme
 * hint or layout name, a `lenient` that is not a boolean). Stateless.
 */
export function inspect(input: string | bigint, options: InspectOptions = {}): Inspection {
  if (typeof options !== 'object' || options === null) {
    throw typeError('inspect options', 'an object', options);
  }
  const hint =
    options.scheme === undefined
      ? undefined
      : assertOneOf('inspect scheme', options.scheme, INSPECT_SCHEMES);
  if (options.lenient !== undefined) assertBoolean('inspect lenient', options.lenient);
  if (typeof input === 'bigint') {
    const reader = INSPECTORS.find((i) => i.decodeBigint !== undefined)!;
    if (hint !== undefined && !reader.hints.includes(hint)) {
      throw typeError(`inspect input (scheme ${hint})`, 'a string', input);
    }
    return reader.decodeBigint!(input, options) as Inspection;
  }
  if (typeof input !== 'string') throw typeError('inspect input', 'a string or a bigint', input);
  const ws = whitespaceAt(input);
  if (ws >= 0) {
    throw new InvalidIdError(
      hint ?? 'identifier',
      'format',
      'surrounding whitespace (idforge never trims an ID; trim the input first)',
      input,
      ws,
    );
  }
  const reader = hint === undefined ? detect(input) : inspectorOf(hint);
  return reader.decode(input, hint ?? reader.family, options) as Inspection;
}
