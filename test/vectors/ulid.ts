/**
 * ULID test vectors with provenance. Each names its source and whether the expected value is
 * published there or derived (computed independently with BigInt arithmetic and the `ulid`
 * package's `decodeTime`, and only then written down). Retrieved 2025 from stored copies of
 * the public sources named.
 */

export interface UlidVector {
  readonly source: string;
  readonly ulid: string;
  /** Unix ms. */
  readonly time: number;
  /** The 16 bytes in hex. */
  readonly hex: string;
}

export const ulidVectors: readonly UlidVector[] = [
  {
    source:
      'oklog/ulid ulid_test.go TestAlizainCompatibility: MustNew(1469918176385, 16 zero bytes) ' +
      'equals MustParse("01ARYZ6S410000000000000000") (published)',
    ulid: '01ARYZ6S410000000000000000',
    time: 1469918176385,
    hex: '01563df3648100000000000000000000',
  },
  {
    source:
      'oklog/ulid ulid_test.go testULID: New(1e5, nil) == ULID{0x0,0x0,0x0,0x1,0x86,0xa0} ' +
      '(published bytes; text derived)',
    ulid: '00000031N00000000000000000',
    time: 100000,
    hex: '0000000186a000000000000000000000',
  },
  {
    source:
      'oklog/ulid ulid_test.go testULID: New(1e5, 16 bytes of 0xFF) has entropy 0xFF*10 ' +
      '(published bytes; text derived)',
    ulid: '00000031N0ZZZZZZZZZZZZZZZZ',
    time: 100000,
    hex: '0000000186a0ffffffffffffffffffff',
  },
  {
    source:
      'oklog/ulid ulid_test.go ExampleULID: time.Unix(1000000, 0) prints ' +
      '0000XSNJG0MQJHBF4QX1EFD6Y3 (published; bytes derived)',
    ulid: '0000XSNJG0MQJHBF4QX1EFD6Y3',
    time: 1000000000,
    hex: '00003b9aca00a5e515bc97e85cf69bc3',
  },
  {
    source:
      'ulid/spec README: ulid() // 01ARZ3NDEKTSV4RRFFQ69G5FAV (published; time, bytes derived)',
    ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
    time: 1469922850259,
    hex: '01563e3ab5d3d6764c61efb99302bd5b',
  },
  {
    source: 'ulid/spec README, Specification: 01AN4Z07BY 79KA1307SR9X4MV3 (published; derived)',
    ulid: '01AN4Z07BY79KA1307SR9X4MV3',
    time: 1465824320894,
    hex: '015549f01d7e3a66a08c07ce13d25363',
  },
  {
    source: 'ulid/spec README, Overflow Errors: the largest valid ULID, time 2^48 - 1 (published)',
    ulid: '7ZZZZZZZZZZZZZZZZZZZZZZZZZ',
    time: 281474976710655,
    hex: 'ffffffffffffffffffffffffffffffff',
  },
  {
    source: 'oklog/ulid ulid_test.go TestOverflowHandling: valid (published)',
    ulid: '70000000000000000000000000',
    time: 246290604621824,
    hex: 'e0000000000000000000000000000000',
  },
  {
    source: 'oklog/ulid ulid_test.go TestOverflowHandling: valid, the zero ULID (published)',
    ulid: '00000000000000000000000000',
    time: 0,
    hex: '00000000000000000000000000000000',
  },
];

/** ulid/javascript test.js, encodeTime: encodeTime(1469918176385, 10) === '01ARYZ6S41'. */
export const encodeTimeVector = { time: 1469918176385, prefix: '01ARYZ6S41' } as const;

/** oklog/ulid ulid_test.go TestOverflowHandling, the rejected inputs (ErrOverflow). */
export const overflowing: readonly string[] = [
  '80000000000000000000000000',
  '80000000000000000000000001',
  'ZZZZZZZZZZZZZZZZZZZZZZZZZZ',
];

/** ulid/javascript test/node/uuid.spec.ts (published; the reference prints upper case). */
export const uuidPairs: readonly { ulid: string; uuid: string; source: string }[] = [
  {
    source: 'ulid/javascript uuid.spec.ts ulidToUUID',
    ulid: '01ARYZ6S41TSV4RRFFQ69G5FAV',
    uuid: '01563DF3-6481-D676-4C61-EFB99302BD5B',
  },
  {
    source: 'ulid/javascript uuid.spec.ts ulidToUUID',
    ulid: '01JQ4T23H220KM7X0B3V1109DQ',
    uuid: '0195C9A1-0E22-1027-43F4-0B1EC21025B7',
  },
  {
    source: 'ulid/javascript uuid.spec.ts uuidToULID',
    ulid: '01JQ4T8BHJR0A5YKX7SVTVX0YN',
    uuid: '0195C9A4-2E32-C014-5F4F-A7CEF5BE83D5',
  },
  {
    source: 'ulid/javascript uuid.spec.ts uuidToULID',
    ulid: '01JQ4T8X6CA54VSH0AANN0SWCX',
    uuid: '0195C9A4-74CC-5149-BCC4-0A556A0CF19D',
  },
];

/**
 * ulid/javascript test/node/crockford.spec.ts fixULIDBase32: "oLARYZ6-S41TSV4RRF-FQ69G5FAV"
 * fixes to "01ARYZ6S41TSV4RRFFQ69G5FAV". idforge does not strip hyphens; the lenient decoder
 * must read the hyphen-free form the same way.
 */
export const lenientVector = {
  input: 'oLARYZ6S41TSV4RRFFQ69G5FAV',
  canonical: '01ARYZ6S41TSV4RRFFQ69G5FAV',
} as const;

/**
 * ulid/spec README, Monotonicity: within one millisecond 01BX5ZZKBKACTAV9WEVGEMMVRZ is
 * followed by 01BX5ZZKBKACTAV9WEVGEMMVS0, and 01BX5ZZKBKZZZZZZZZZZZZZZZZ by an error.
 */
export const monotonicVector = {
  first: '01BX5ZZKBKACTAV9WEVGEMMVRZ',
  second: '01BX5ZZKBKACTAV9WEVGEMMVS0',
  last: '01BX5ZZKBKZZZZZZZZZZZZZZZZ',
} as const;

/** oklog/ulid ulid_test.go TestParseStrictInvalidCharacters: the base string. */
export const strictBase = '0000XSNJG0MQJHBF4QX1EFD6Y3';

/**
 * The monotonic increment at every carry boundary of the 80-bit randomness, within one
 * millisecond (time 01BX5ZZKBK, the spec's example). Derived: `next` is `from` + 1 as an 80-bit
 * integer (computed with Python integers, independently of idforge), written as 16 Crockford
 * digits. src/core/ulid.ts keeps the randomness as four 20-bit limbs of 4 digits each (and
 * nextBytes joins them into two 40-bit halves), so every limb boundary has a vector: carry out of
 * the low limb, on into the second, third and top limb, carries inside a limb, and the all-Z
 * randomness that cannot be incremented.
 */
export const monotonicCarryVectors: readonly {
  readonly title: string;
  readonly from: string;
  readonly next: string | 'overflow';
}[] = [
  {
    title: 'carry out of the low limb: …0000ZZZZ → …00010000',
    from: '01BX5ZZKBK000000000000ZZZZ',
    next: '01BX5ZZKBK0000000000010000',
  },
  {
    title: 'carry out of the low limb into a non-zero second limb',
    from: '01BX5ZZKBKACTAV9WEVGEMZZZZ',
    next: '01BX5ZZKBKACTAV9WEVGEN0000',
  },
  {
    title: 'carry out of the low limb, then inside the second limb',
    from: '01BX5ZZKBK0000000000ZZZZZZ',
    next: '01BX5ZZKBK0000000001000000',
  },
  {
    title: 'carry out of the two low limbs (the low 40-bit half) into the third',
    from: '01BX5ZZKBK00000000ZZZZZZZZ',
    next: '01BX5ZZKBK0000000100000000',
  },
  {
    title: 'carry out of the low 40-bit half into a non-zero third limb',
    from: '01BX5ZZKBKACTAV9WEZZZZZZZZ',
    next: '01BX5ZZKBKACTAV9WF00000000',
  },
  {
    title: 'carry out of the three low limbs into the top limb',
    from: '01BX5ZZKBK0000ZZZZZZZZZZZZ',
    next: '01BX5ZZKBK0001000000000000',
  },
  {
    title: 'carry out of the three low limbs into a non-zero top limb',
    from: '01BX5ZZKBKACTAZZZZZZZZZZZZ',
    next: '01BX5ZZKBKACTB000000000000',
  },
  {
    title: 'carry inside the top limb, from its lowest digit to its highest',
    from: '01BX5ZZKBK0ZZZZZZZZZZZZZZZ',
    next: '01BX5ZZKBK1000000000000000',
  },
  {
    title: 'the last carry possible: into the top digit',
    from: '01BX5ZZKBKYZZZZZZZZZZZZZZZ',
    next: '01BX5ZZKBKZ000000000000000',
  },
  {
    title: 'no carry: one below the largest randomness',
    from: '01BX5ZZKBKZZZZZZZZZZZZZZZY',
    next: '01BX5ZZKBKZZZZZZZZZZZZZZZZ',
  },
  {
    title: 'the randomness 2^80 - 1 cannot be incremented: overflow, never into the time',
    from: '01BX5ZZKBKZZZZZZZZZZZZZZZZ',
    next: 'overflow',
  },
];
