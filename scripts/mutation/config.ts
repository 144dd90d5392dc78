// The modules the mutation run measures (issue 34): the safety-critical code, each with the
// test files that cover it (only those run per mutant, so a mutant costs seconds, not the
// suite's minutes). A file may name its own tests (else its module's), restrict the mutants
// to some functions, and have the SQL or Lua in its strings mutated (`text`).
import type { Focus } from './mutants.js';

export interface FileConfig extends Focus {
  readonly path: string;
  /** Test files for this file's mutants; default: the module's `tests`. */
  readonly tests?: readonly string[];
}

export interface ModuleConfig {
  readonly name: string;
  readonly files: readonly FileConfig[];
  readonly tests: readonly string[];
  /** How many mutants the default run draws (fixed seed); --all runs every one. */
  readonly sample: number;
}

const IDFORGE = 'packages/idforge/src';
const STORES = 'packages/stores/src';
const SERVER = 'packages/server/src/service';

export const MODULES: readonly ModuleConfig[] = [
  {
    name: 'generators',
    files: [
      {
        path: `${IDFORGE}/core/snowflake/generator.ts`,
        tests: [
          'test/core/snowflake-generator.test.ts',
          'test/core/snowflake-faults.test.ts',
          'test/core/snowflake-gene.test.ts',
          'test/core/snowflake-generator-edges.test.ts',
          'test/core/snowflake-stalled-clock.test.ts',
          'test/core/horizon-message.test.ts',
        ],
      },
      {
        path: `${IDFORGE}/core/uuid/v7.ts`,
        tests: [
          'test/core/uuid-v7.test.ts',
          'test/core/uuid-v7-readings.test.ts',
          'test/core/uuid-v7-order.test.ts',
          'test/core/horizon-message.test.ts',
        ],
      },
      {
        path: `${IDFORGE}/core/ulid.ts`,
        tests: [
          'test/core/ulid.test.ts',
          'test/core/ulid-monotonic.test.ts',
          'test/core/ulid-edges.test.ts',
        ],
      },
    ],
    tests: [],
    sample: 30,
  },
  {
    name: 'coord',
    files: [
      { path: `${IDFORGE}/coord/snowflake-node.ts` },
      { path: `${IDFORGE}/coord/node-activation.ts` },
      { path: `${IDFORGE}/coord/node-fence.ts` },
      { path: `${IDFORGE}/coord/node-lease.ts` },
      { path: `${IDFORGE}/coord/node-marks.ts` },
      { path: `${IDFORGE}/coord/node-status.ts` },
      { path: `${IDFORGE}/coord/node-switch.ts` },
      { path: `${IDFORGE}/coord/lease-keeper.ts` },
      { path: `${IDFORGE}/coord/watermark.ts` },
      { path: `${IDFORGE}/coord/worker-switch.ts` },
    ],
    tests: [
      'test/coord/watermark.test.ts',
      'test/coord/worker-switch.test.ts',
      'test/coord/fleet-skew.test.ts',
      'test/coord/lease-keeper.test.ts',
      'test/coord/snowflake-node.test.ts',
      'test/coord/snowflake-node-edges.test.ts',
    ],
    sample: 30,
  },
  {
    name: 'lease-stores',
    files: [
      {
        path: `${STORES}/sqlite/lease-store.ts`,
        tests: [
          'test/contract/lease-store.test.ts',
          'test/contract/lease-store-sqlite-specific.test.ts',
          'test/contract/lease-store-edges.test.ts',
        ],
      },
      {
        path: `${STORES}/postgres/lease-store.ts`,
        tests: [
          'test/contract/lease-store.test.ts',
          'test/contract/lease-store-postgres-specific.test.ts',
          'test/contract/lease-store-edges.test.ts',
          'test/contract/sql-server-outage.test.ts',
          'test/contract/sql-server-races.test.ts',
        ],
      },
      {
        path: `${STORES}/postgres/schema.ts`,
        functions: ['leaseSql'],
        text: true,
        tests: [
          'test/contract/lease-store.test.ts',
          'test/contract/lease-store-postgres-specific.test.ts',
          'test/contract/lease-store-edges.test.ts',
          'test/contract/sql-server-races.test.ts',
        ],
      },
      {
        path: `${STORES}/redis/lease-store.ts`,
        tests: [
          'test/contract/lease-store.test.ts',
          'test/contract/lease-store-redis-specific.test.ts',
          'test/contract/lease-store-redis-scripts.test.ts',
        ],
      },
      {
        path: `${STORES}/redis/scripts.ts`,
        text: true,
        tests: [
          'test/contract/lease-store.test.ts',
          'test/contract/lease-store-redis-specific.test.ts',
          'test/sequences/counter-source-redis.test.ts',
        ],
      },
      {
        path: `${STORES}/file/lease-store.ts`,
        tests: [
          'test/contract/lease-store.test.ts',
          'test/contract/lease-store-file-specific.test.ts',
          'test/contract/lease-store-edges.test.ts',
        ],
      },
      {
        path: `${STORES}/etcd/lease-store.ts`,
        tests: [
          'test/contract/lease-store.test.ts',
          'test/contract/lease-store-etcd-specific.test.ts',
          'test/contract/lease-store-edges.test.ts',
          'test/contract/lease-store-etcd-leases.test.ts',
          'test/contract/lease-store-etcd-races.test.ts',
        ],
      },
      {
        path: `${STORES}/postgres/mark-store.ts`,
        text: true,
        tests: ['test/contract/mark-store.test.ts', 'test/contract/sql-server-outage.test.ts'],
      },
      {
        path: `${STORES}/sqlite/mark-store.ts`,
        text: true,
        tests: ['test/contract/mark-store.test.ts'],
      },
    ],
    tests: [],
    sample: 40,
  },
  {
    name: 'segment-stores',
    files: [
      {
        path: `${STORES}/postgres/segment-store.ts`,
        text: true,
        tests: [
          'test/contract/segment-store.test.ts',
          'test/contract/segment-store-postgres-specific.test.ts',
          'test/contract/sql-server-outage.test.ts',
          'test/contract/sql-server-races.test.ts',
        ],
      },
      {
        path: `${STORES}/mysql/segment-store.ts`,
        text: true,
        tests: [
          'test/contract/segment-store.test.ts',
          'test/contract/segment-store-mysql-specific.test.ts',
          'test/contract/segment-store-edges.test.ts',
          'test/contract/sql-server-outage.test.ts',
          'test/contract/sql-server-races.test.ts',
        ],
      },
      {
        path: `${STORES}/sqlite/segment-store.ts`,
        text: true,
        tests: [
          'test/contract/segment-store.test.ts',
          'test/contract/segment-store-sqlite-specific.test.ts',
          'test/contract/segment-store-edges.test.ts',
        ],
      },
      {
        path: `${STORES}/segment-args.ts`,
        tests: [
          'test/contract/segment-store.test.ts',
          'test/contract/segment-store-sqlite-specific.test.ts',
          'test/contract/segment-store-edges.test.ts',
        ],
      },
    ],
    tests: [],
    sample: 30,
  },
  {
    name: 'gap-free',
    files: [
      { path: `${IDFORGE}/sequences/gap-free.ts` },
      { path: `${STORES}/gap-free-args.ts` },
      {
        path: `${STORES}/postgres/gap-free.ts`,
        text: true,
        tests: [
          'test/sequences/gap-free-postgres.test.ts',
          'test/sequences/gap-free-refusals.test.ts',
          'test/sequences/gap-free-edges.test.ts',
          'test/sequences/gap-free-timeout.test.ts',
        ],
      },
      {
        path: `${STORES}/mysql/gap-free.ts`,
        text: true,
        tests: [
          'test/sequences/gap-free-mysql.test.ts',
          'test/sequences/gap-free-refusals.test.ts',
          'test/sequences/gap-free-edges.test.ts',
          'test/sequences/gap-free-timeout.test.ts',
        ],
      },
      {
        path: `${STORES}/sqlite/gap-free.ts`,
        text: true,
        tests: [
          'test/sequences/gap-free-sqlite.test.ts',
          'test/sequences/gap-free-refusals.test.ts',
          'test/sequences/gap-free-edges.test.ts',
          'test/sequences/gap-free-timeout.test.ts',
        ],
      },
    ],
    tests: [
      'test/sequences/gap-free-sqlite.test.ts',
      'test/sequences/gap-free-refusals.test.ts',
      'test/sequences/gap-free-timeout.test.ts',
      'test/sequences/gap-free-race.test.ts',
      'test/sequences/gap-free-edges.test.ts',
      'test/sequences/gap-free-sequence-edges.test.ts',
    ],
    sample: 30,
  },
  {
    name: 'sequences',
    files: [
      {
        path: `${IDFORGE}/sequences/number-format.ts`,
        tests: ['test/sequences/number-format.test.ts', 'test/service/formatted-sequences.test.ts'],
      },
      {
        path: `${IDFORGE}/sequences/formatted-sequence.ts`,
        tests: [
          'test/sequences/number-format.test.ts',
          'test/service/formatted-sequences.test.ts',
          'test/sequences/formatted-sequence-edges.test.ts',
        ],
      },
      {
        path: `${IDFORGE}/sequences/counter-source.ts`,
        tests: [
          'test/sequences/counter-source.test.ts',
          'test/sequences/counter-source-redis.test.ts',
          'test/sequences/counter-source-edges.test.ts',
        ],
      },
      {
        path: `${IDFORGE}/sequences/double-buffer.ts`,
        tests: [
          'test/sequences/double-buffer.test.ts',
          'test/sequences/double-buffer-properties.test.ts',
          'test/sequences/segment-buffer.test.ts',
          'test/sequences/segment-buffer-observe.test.ts',
          'test/sequences/segment-buffer-exhausted.test.ts',
        ],
      },
      {
        path: `${IDFORGE}/sequences/segment-buffer.ts`,
        tests: [
          'test/sequences/segment-buffer.test.ts',
          'test/sequences/segment-buffer-observe.test.ts',
          'test/sequences/segment-buffer-exhausted.test.ts',
        ],
      },
      {
        path: `${STORES}/ticket-common.ts`,
        tests: [
          'test/stores/floor-plan.test.ts',
          'test/contract/ticket-server.test.ts',
          'test/contract/ticket-server-mysql-specific.test.ts',
        ],
      },
    ],
    tests: [],
    sample: 30,
  },
  {
    name: 'sql-functions',
    files: [
      { path: `${IDFORGE}/sql/layout-sql.ts` },
      {
        path: `${IDFORGE}/sql/postgres.ts`,
        text: true,
        tests: [
          'test/sql/postgres.test.ts',
          'test/sql/postgres-inputs.test.ts',
          'test/sql/postgres-switch.test.ts',
          'test/sql/postgres-lock.test.ts',
          'test/sql/postgres-edges.test.ts',
        ],
      },
      {
        path: `${IDFORGE}/sql/mariadb.ts`,
        text: true,
        tests: [
          'test/sql/mariadb.test.ts',
          'test/sql/mariadb-inputs.test.ts',
          'test/sql/mariadb-state.test.ts',
          'test/sql/mariadb-reinstall.test.ts',
          'test/sql/mariadb-edges.test.ts',
        ],
      },
      {
        // The install's statements: the state tests apply them (re-install, v1 upgrade).
        path: `${IDFORGE}/sql/script.ts`,
        tests: [
          'test/sql/layout-sql.test.ts',
          'test/sql/sqlite.test.ts',
          'test/sql/versions.test.ts',
          'test/sql/postgres.test.ts',
          'test/sql/mariadb.test.ts',
          'test/sql/postgres-edges.test.ts',
          'test/sql/mariadb-edges.test.ts',
          'test/sql/postgres-switch.test.ts',
          'test/sql/mariadb-state.test.ts',
        ],
      },
    ],
    tests: [
      'test/sql/layout-sql.test.ts',
      'test/sql/sqlite.test.ts',
      'test/sql/versions.test.ts',
      'test/sql/postgres.test.ts',
      'test/sql/mariadb.test.ts',
      'test/sql/postgres-edges.test.ts',
      'test/sql/mariadb-edges.test.ts',
    ],
    sample: 30,
  },
  {
    name: 'auth',
    files: [
      { path: `${SERVER}/http/auth.ts` },
      { path: `${SERVER}/http/plugins/auth.ts` },
      {
        path: `${SERVER}/http/rate-limit.ts`,
        tests: ['test/service/rate-limit.test.ts', 'test/service/rate-limit-key.test.ts'],
      },
      {
        path: `${SERVER}/http/routes/leases.ts`,
        functions: ['checkTokenRange', 'checkTokenCount', 'checkAcquire', 'keepWithinCount'],
        tests: ['test/service/lease-routes.test.ts', 'test/service/lease-routes-range.test.ts'],
      },
    ],
    tests: [
      'test/service/app.test.ts',
      'test/service/plugins.test.ts',
      'test/service/fast-lane.test.ts',
      'test/service/lease-routes.test.ts',
      'test/service/status-codes.test.ts',
      'test/service/auth-tokens.test.ts',
    ],
    sample: 30,
  },
  {
    name: 'public-ids',
    files: [
      { path: `${IDFORGE}/public/opaque-open.ts` },
      { path: `${IDFORGE}/public/opaque.ts` },
      { path: `${IDFORGE}/public/keys.ts` },
      { path: `${IDFORGE}/public/version-key.ts` },
    ],
    tests: [
      'test/public/keys.test.ts',
      'test/public/opaque.test.ts',
      'test/public/opaque-tamper.test.ts',
      'test/public/opaque-reference.test.ts',
      'test/public/keys-text.test.ts',
      'test/public/opaque-options.test.ts',
      'test/public/opaque-boundaries.test.ts',
    ],
    sample: 30,
  },
];
