/**
 * KSUID test vectors with provenance (segmentio/ksuid, the reference implementation).
 * Retrieved 2025 from stored copies of the public sources named. "Published" values are
 * printed in the source; "derived" ones were computed independently (BigInt base62) before
 * being written down.
 */

export interface KsuidVector {
  readonly source: string;
  readonly ksuid: string;
  /** The 20 bytes, upper-case hex as `ksuid -f inspect` prints them. */
  readonly raw: string;
  /** Seconds since the KSUID epoch. */
  readonly timestamp: number;
  /** The time as ISO 8601 UTC. */
  readonly iso: string;
  readonly payload: string;
}

export const ksuidVectors: readonly KsuidVector[] = [
  {
    source:
      'segmentio/ksuid README, "Inspect the components of a KSUID": String, Raw, Timestamp, ' +
      'Payload published; Time printed as 2017-10-09 21:00:47 -0700 PDT',
    ksuid: '0ujtsYcgvSTl8PAuAdqWYSMnLOv',
    raw: '0669F7EFB5A1CD34B5F99D1154FB6853345C9735',
    timestamp: 107608047,
    iso: '2017-10-10T04:00:47.000Z',
    payload: 'B5A1CD34B5F99D1154FB6853345C9735',
  },
  {
    source:
      'segmentio/ksuid README, "Generate a KSUID and inspect its components" (published; ' +
      'Time printed as 2017-10-09 21:46:20 -0700 PDT)',
    ksuid: '0ujzPyRiIAffKhBux4PvQdDqMHY',
    raw: '066A029C73FC1AA3B2446246D6E89FCD909E8FE8',
    timestamp: 107610780,
    iso: '2017-10-10T04:46:20.000Z',
    payload: '73FC1AA3B2446246D6E89FCD909E8FE8',
  },
  ...[
    ['9850EEEC191BF4FF26F99315CE43B0C8', '0uk1Hbc9dQ9pxyTqJ93IUrfhdGq'],
    ['CC55072555316F45B8CA2D2979D3ED0A', '0uk1HdCJ6hUZKDgcxhpJwUl5ZEI'],
    ['BA1C205D6177F0992D15EE606AE32238', '0uk1HcdvF0p8C20KtTfdRSB9XIm'],
    ['67517BA309EA62AE7991B27BB6F2FCAC', '0uk1Ha7hGJ1Q9Xbnkt0yZgNwg3g'],
  ].map(([payload, ksuid]) => ({
    source:
      'segmentio/ksuid README, "Generate KSUIDs and output JSON using template formatting": ' +
      'timestamp 107611700, payload and ksuid published (raw, time derived)',
    ksuid: ksuid!,
    raw: `066A0634${payload!}`,
    timestamp: 107611700,
    iso: '2017-10-10T05:01:40.000Z',
    payload: payload!,
  })),
  {
    source: 'segmentio/ksuid ksuid_test.go TestEncoding/TestParse: Nil is 27 "0" (published)',
    ksuid: '000000000000000000000000000',
    raw: '0000000000000000000000000000000000000000',
    timestamp: 0,
    iso: '2014-05-13T16:53:20.000Z',
    payload: '00000000000000000000000000000000',
  },
  {
    source: 'segmentio/ksuid ksuid_test.go TestParse: maxStringEncoded is 20 bytes of 0xFF',
    ksuid: 'aWgEPTl1tmebfsQzFP4bxwgy80V',
    raw: 'FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF',
    timestamp: 4294967295,
    iso: '2150-06-19T23:21:35.000Z',
    payload: 'FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF'.slice(8),
  },
];

/** segmentio/ksuid ksuid_test.go TestAppend: a valid KSUID that must round-trip. */
export const appendVector = '0pN1Own7255s7jwpwy495bAZeEa';

/**
 * Invalid inputs and why. segmentio/ksuid ksuid_test.go TestIssue25 (errStrValue) and
 * TestParseInvalidBase62; the last is the smallest overflowing value (Max + 1, derived).
 */
export const invalidKsuids: readonly {
  input: string;
  reason: 'overflow' | 'alphabet';
  position?: number;
}[] = [
  { input: 'aaaaaaaaaaaaaaaaaaaaaaaaaaa', reason: 'overflow' },
  { input: 'aWgEPTl1tmebfsQzFP4bxwgy80!', reason: 'alphabet', position: 26 },
  { input: '0??????????????????????????', reason: 'alphabet', position: 1 },
  { input: '0!!!!!!!!!!!!!!!!!!!!!!!!!!', reason: 'alphabet', position: 1 },
  { input: 'aWgEPTl1tmebfsQzFP4bxwgy80W', reason: 'overflow' },
  { input: 'zzzzzzzzzzzzzzzzzzzzzzzzzzz', reason: 'overflow' },
];
