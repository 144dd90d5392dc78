/**
 * What is true of one ID scheme, written once beside it: its name on the wire and in the CLI,
 * how the service makes and the client checks it, how inspect detects and decodes it, and how
 * `idforge gen` makes it. The registry (./registry.ts) lists the descriptors; every list of
 * schemes elsewhere (inspect's detection order and hints, the wire contract, the server's
 * routes and OpenAPI enums, the CLI's help and dispatch) is derived from that one list.
 *
 * A descriptor only references its scheme's functions: a bundle that imports one scheme's
 * module (`uuidv7`) never reaches a descriptor, and one that imports the registry carries
 * every scheme, as a multi-scheme consumer must.
 */
import type { Clock } from '../clock.js';
import type { Layout } from '../snowflake/layout-types.js';

/** The part of a scheme that `@idforge/server` issues (`GET /v1/ids/{scheme}`). */
export interface SchemeService {
  /** Whether `id` is an ID of the scheme as the service formats it: the client's check. */
  readonly valid: (id: string) => boolean;
  /**
   * A generator made in the service's own process on the app's shared clock (read once per
   * answer); absent when a node or a clock of the service makes the IDs instead.
   */
  readonly generator?: (clock: Clock) => { next(): string };
}

/** How a descriptor decodes: the options of `inspect` but the scheme hint. */
export interface DecodeOptions {
  /** Layout of a Snowflake (name or value). Default `default`. */
  readonly layout?: string | Layout;
  /** Read Crockford base32 leniently (I and L as 1, O as 0). Default false. */
  readonly lenient?: boolean;
}

/** The special UUIDs of RFC 9562: Nil (§5.9, all bits 0) and Max (§5.10, all bits 1). */
export type UuidSpecial = 'nil' | 'max';

/**
 * What a descriptor decoded (`inspect`'s `Inspection`, whose `scheme` is one of the registry's
 * families). Absent keys do not apply to the scheme.
 */
export interface Decoded<F extends string = string> {
  /** The input exactly as given (a `bigint` as its decimal text). */
  readonly input: string;
  readonly scheme: F;
  /** The canonical text form (a UUID's lower case with hyphens, a number's decimal). */
  readonly value: string;
  /** The bytes as lower-case hex (Snowflake: the 64-bit value, 16 digits). */
  readonly hex: string;
  /** UUID: `nil` or `max` for the special values, which have no version or variant. */
  readonly special?: UuidSpecial;
  /** UUID version (absent for Nil and Max). */
  readonly version?: number;
  /** UUID variant (absent for Nil and Max). */
  readonly variant?: string;
  /** Creation time in unix milliseconds, for schemes that carry one. */
  readonly unixMs?: number;
  /** `unixMs` as ISO 8601. */
  readonly timestamp?: string;
  /** Snowflake: the layout's name. */
  readonly layout?: string;
  /** Snowflake: every field except time, by name. */
  readonly fields?: Readonly<Record<string, number>>;
}

/** The part of a scheme that `inspect` detects and decodes. */
export interface SchemeInspector {
  /** The `scheme` that `inspect` reports for it. */
  readonly family: string;
  /** The hints `inspect({ scheme })` accepts for it, in the order the docs list them. */
  readonly hints: readonly string[];
  /** The shapes it has, in the words of the error that no scheme fits: `a ULID (26)`. */
  readonly shape: string;
  /** Whether `text` (no surrounding whitespace) has its shape; detection asks in registry order. */
  readonly detect: (text: string) => boolean;
  /** Decodes `input` as this scheme, `hint` given or detected; throws `InvalidIdError`. */
  readonly decode: (input: string, hint: string, options: DecodeOptions) => Decoded;
  /** Decodes a `bigint`, for the one scheme whose IDs are numbers. */
  readonly decodeBigint?: (id: bigint, options: DecodeOptions) => Decoded;
}

/** A scheme's IDs as `idforge gen` prints them: text, or the bytes (a 64-bit ID is both). */
export interface GenSource {
  text(): string | bigint;
  bytes(): Uint8Array | bigint;
}

/** The flags of `idforge gen`, as parsed: what a scheme's own flag reads. */
export type GenFlags = Readonly<Record<string, string | boolean | string[] | undefined>>;

/** A flag of `idforge gen` that applies to one scheme alone. */
export interface GenFlag {
  readonly name: string;
  /** The placeholder of its value in the help (`M`); absent for a switch. */
  readonly arg?: string;
  /** Its help, after `scheme:` (more lines indented to match). */
  readonly help: string;
}

/** The part of a scheme that `idforge gen` makes. */
export interface SchemeGen {
  /** Its line in `idforge gen --help`, after the name (more lines indented to match). */
  readonly help: string;
  /** The flags of `gen` that apply to it alone: refused with any other scheme. */
  readonly flags?: readonly GenFlag[];
  /**
   * Its IDs, from the flags; throws `RangeError` naming a bad flag value. Absent when the CLI
   * makes them itself (a Snowflake needs a node identity or a store).
   */
  readonly source?: (flags: GenFlags) => GenSource;
}

/**
 * A key a scheme gives `idforge bench db`: how the engine stores it and how it is made. The
 * bench runs one table per key; a scheme may give several (its bytes and its text).
 */
export interface SchemeBenchKey {
  /** The key's name in `--schemes` and the report. */
  readonly name: string;
  /** A signed 64-bit integer, 16 bytes, or the 36-character UUID text. */
  readonly kind: 'int64' | 'bytes16' | 'text36';
  /** A fresh generator of the keys, in generation order. */
  readonly keys: () => () => bigint | Uint8Array | string;
}

/** One ID scheme: see the module comment. */
export interface SchemeDescriptor {
  /** Its name on the wire, in the CLI and in reports: lower case, as `GET /v1/ids/{name}`. */
  readonly name: string;
  /** Its name in prose: `UUIDv7`. */
  readonly title: string;
  readonly service?: SchemeService;
  readonly inspect?: SchemeInspector;
  readonly gen?: SchemeGen;
  readonly bench?: readonly SchemeBenchKey[];
}
