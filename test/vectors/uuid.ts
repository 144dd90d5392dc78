/**
 * UUID test vectors, each with its source and section. Data only.
 *
 * RFC 9562 "Universally Unique IDentifiers (UUIDs)", May 2024,
 * https://www.rfc-editor.org/rfc/rfc9562 (read 2026-11-30).
 * The v1/v6/v7 examples all encode 2022-02-22 14:22:22.00 -05:00 (= 19:22:22 UTC,
 * unix 1645557742000 ms); the v1 and v6 examples share clock sequence 0x33C8 and node
 * 0x9F6BDECED846.
 */
import type { UuidVariant } from '../../packages/idforge/src/core/uuid/parse.js';

export interface UuidVector {
  /** Where the vector is published. */
  readonly source: string;
  /** As published (case kept). */
  readonly text: string;
  readonly version: number;
  readonly variant: UuidVariant;
  /** Unix ms of the embedded time, where the source gives one. */
  readonly unixMs?: number;
  /** 60-bit Gregorian timestamp (v1/v6), in 100-ns intervals since 1582-10-15. */
  readonly ticks?: bigint;
}

/** 2022-02-22T19:22:22.000Z, the instant of RFC 9562's time-based examples. */
export const RFC_EXAMPLE_UNIX_MS = 1_645_557_742_000;

export const RFC9562_VECTORS: readonly UuidVector[] = [
  {
    // RFC 9562 Appendix A.1 "Example of a UUIDv1 Value" (timestamp 0x1EC9414C232AB00).
    source: 'RFC 9562 §A.1',
    text: 'C232AB00-9414-11EC-B3C8-9F6BDECED846',
    version: 1,
    variant: 'rfc9562',
    unixMs: RFC_EXAMPLE_UNIX_MS,
    ticks: 0x1ec9414c232ab00n,
  },
  {
    // RFC 9562 Appendix A.2 "Example of a UUIDv3 Value" (DNS namespace, "www.example.com").
    source: 'RFC 9562 §A.2',
    text: '5df41881-3aed-3515-88a7-2f4a814cf09e',
    version: 3,
    variant: 'rfc9562',
  },
  {
    // RFC 9562 Appendix A.3 "Example of a UUIDv4 Value".
    source: 'RFC 9562 §A.3',
    text: '919108f7-52d1-4320-9bac-f847db4148a8',
    version: 4,
    variant: 'rfc9562',
  },
  {
    // RFC 9562 Appendix A.4 "Example of a UUIDv5 Value" (DNS namespace, "www.example.com").
    source: 'RFC 9562 §A.4',
    text: '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    version: 5,
    variant: 'rfc9562',
  },
  {
    // RFC 9562 Appendix A.5 "Example of a UUIDv6 Value": the A.1 time reordered.
    source: 'RFC 9562 §A.5',
    text: '1EC9414C-232A-6B00-B3C8-9F6BDECED846',
    version: 6,
    variant: 'rfc9562',
    unixMs: RFC_EXAMPLE_UNIX_MS,
    ticks: 0x1ec9414c232ab00n,
  },
  {
    // RFC 9562 Appendix A.6 "Example of a UUIDv7 Value" (unix_ts_ms 0x017F22E279B0).
    source: 'RFC 9562 §A.6',
    text: '017F22E2-79B0-7CC3-98C4-DC0C0C07398F',
    version: 7,
    variant: 'rfc9562',
    unixMs: 0x017f22e279b0,
  },
  {
    // RFC 9562 Appendix B.1 "Example of a UUIDv8 Value (Time-Based)".
    source: 'RFC 9562 §B.1',
    text: '2489E9AD-2EE2-8E00-8EC9-32D5F69181C0',
    version: 8,
    variant: 'rfc9562',
  },
  {
    // RFC 9562 Appendix B.2 "Example of a UUIDv8 Value (Name-Based)".
    source: 'RFC 9562 §B.2',
    text: '5c146b14-3c52-8afd-938a-375d0df1fbf6',
    version: 8,
    variant: 'rfc9562',
  },
  {
    // RFC 9562 §5.9 "Nil UUID": all 128 bits zero; its variant bits read as NCS (0xxx).
    source: 'RFC 9562 §5.9',
    text: '00000000-0000-0000-0000-000000000000',
    version: 0,
    variant: 'ncs',
  },
  {
    // RFC 9562 §5.10 "Max UUID": all 128 bits one; its variant bits read as reserved (111x).
    source: 'RFC 9562 §5.10',
    text: 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
    version: 15,
    variant: 'future',
  },
];

/** RFC 9562 §A.1 and §A.5: the same time, clock sequence and node as v1 and as v6. */
export const RFC9562_V1_V6_PAIR = {
  v1: 'c232ab00-9414-11ec-b3c8-9f6bdeced846',
  v6: '1ec9414c-232a-6b00-b3c8-9f6bdeced846',
} as const;

/**
 * MySQL 8.0 Reference Manual, "Miscellaneous Functions", UUID_TO_BIN(): the example
 * `SET @uuid = '6ccd780c-baba-1026-9564-5b8c656024db'`, for which
 * `HEX(UUID_TO_BIN(@uuid, 1))` is `1026BABA6CCD780C95645B8C656024DB` and
 * `BIN_TO_UUID(UUID_TO_BIN(@uuid, 1), 1)` gives the input back.
 * https://dev.mysql.com/doc/refman/8.0/en/miscellaneous-functions.html#function_uuid-to-bin
 */
export const MYSQL_SWAP_EXAMPLE = {
  uuid: '6ccd780c-baba-1026-9564-5b8c656024db',
  swappedHex: '1026baba6ccd780c95645b8c656024db',
} as const;
