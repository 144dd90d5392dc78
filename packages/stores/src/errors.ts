/**
 * Errors only the stores throw, exported by @idforge/stores: a driver is missing or unbuilt,
 * SQLite's node is in use, or the store answered but is not migrated, refused the
 * credentials, or (SQLite, file) its path cannot be used. Each names the fix; none of them goes
 * away by retrying, so idforge does not retry them (a store that cannot be reached or times
 * out is idforge's `StoreUnavailableError`). Part of the one catalogue: codes in idforge's
 * `ErrorCode`, each documented in `docs/errors.md`. `address` never carries a password.
 */
import { IdforgeError } from 'idforge';

/**
 * The store answered, but idforge's tables (PostgreSQL: its schema) are not there: the store
 * was never migrated, or was migrated under another namespace. `cause` is the driver's error.
 */
export class StoreNotMigratedError extends IdforgeError {
  readonly backend: string;
  readonly address: string;
  readonly operation: string;

  constructor(backend: string, address: string, operation: string, cause?: unknown) {
    const why = cause instanceof Error ? ` (${cause.message})` : '';
    super(
      'IDF_STORE_NOT_MIGRATED',
      `the ${backend} store at ${address} has no idforge tables${why}: it was not migrated (or ` +
        `under another ?namespace=). Create them once: \`idforge migrate --store ${address}\` ` +
        `(@idforge/server), or \`await migrateStore('${address}')\` from @idforge/stores.`,
      { cause },
    );
    this.backend = backend;
    this.address = address;
    this.operation = operation;
  }
}

/** The store refused the credentials of the URL (unknown user, wrong password). */
export class StoreAuthError extends IdforgeError {
  readonly backend: string;
  readonly address: string;
  readonly operation: string;

  constructor(backend: string, address: string, operation: string, cause?: unknown) {
    const why = cause instanceof Error ? ` (${cause.message})` : '';
    super(
      'IDF_STORE_AUTH',
      `the ${backend} store at ${address} refused the credentials${why}. Check the user and ` +
        'password in the store URL (user:password@host) and that the user may use that database.',
      { cause },
    );
    this.backend = backend;
    this.address = address;
    this.operation = operation;
  }
}

/** Why a store path cannot be used. */
export type StorePathReason =
  | 'missing'
  | 'no-directory'
  | 'not-a-file'
  | 'permission'
  | 'read-only'
  | 'not-a-store';

const PATH_WHY: Record<StorePathReason, string> = {
  missing: 'does not exist, and this command never creates a store',
  'no-directory': 'is in a directory that does not exist',
  'not-a-file': 'is a directory, not a file',
  permission: 'cannot be opened: permission denied',
  'read-only': 'is read-only for this user: it can be read, but not written',
  'not-a-store': 'is not a database idforge can use',
};

const PATH_FIX: Record<StorePathReason, string> = {
  missing:
    'Check the path (a typo starts a new, empty store), or create the store with `idforge migrate --store URL`.',
  'no-directory': 'Create the directory, or correct the path.',
  'read-only':
    'Give this user write access to the file and its directory (or run the command as the ' +
    'user that owns them); commands that only read (idforge leases, seq show) work as it is.',
  'not-a-file': 'Name a file inside it, e.g. sqlite:DIR/idforge.db.',
  permission:
    'Give this user read and write access to the file and its directory, or pick another path.',
  'not-a-store': 'Correct the path: it names a file that is not an idforge store.',
};

/**
 * The path of a `sqlite:` or `file:` store cannot be used: `reason` says why (a read-only
 * command found no store there, the directory is missing, the path is a directory, permission,
 * a file of another kind). `cause` is the file system's or driver's error.
 */
export class StorePathError extends IdforgeError {
  readonly backend: string;
  readonly path: string;
  readonly reason: StorePathReason;

  constructor(backend: string, path: string, reason: StorePathReason, cause?: unknown) {
    super(
      'IDF_STORE_PATH',
      reason === 'missing'
        ? `no idforge store at ${path}: run \`idforge migrate --store ${backend}:${path}\` or ` +
            `start \`idforge serve\` first. ${path} ${PATH_WHY.missing} (check the path: a ` +
            'typo would start a second, empty store).'
        : `the ${backend} store path ${path} ${PATH_WHY[reason]}. ` +
            PATH_FIX[reason].replace('URL', `${backend}:${path}`),
      { cause },
    );
    this.backend = backend;
    this.path = path;
    this.reason = reason;
  }
}

/**
 * The driver a store needs is not installed: pg, mysql2, ioredis and etcd3 are optional peer
 * dependencies of idforge, loaded only when a URL (or class) of their backend is used.
 * `driver` is the npm package to install; `backend` the store that needed it.
 */
export class DriverMissingError extends IdforgeError {
  readonly driver: string;
  readonly backend: string;

  constructor(driver: string, backend: string, cause?: unknown) {
    super(
      'IDF_DRIVER_MISSING',
      `the ${backend} store needs the package "${driver}", which is not installed: ` +
        `run \`npm install ${driver}\` in your project (@idforge/stores lists every driver as an ` +
        'optional peer dependency, so that applications install only the drivers they use).',
      { cause },
    );
    this.driver = driver;
    this.backend = backend;
  }
}

/**
 * A driver's package is installed but its native binding cannot be loaded: never built
 * (installed with `--ignore-scripts`, no compiler) or built for another Node.js. A
 * `DriverMissingError` (code IDF_DRIVER_MISSING) whose message names the rebuild; `detail` is
 * the first line of the loader's error (`cause`), not the list of paths it tried.
 */
export class DriverBindingError extends DriverMissingError {
  readonly detail: string;

  constructor(driver: string, backend: string, detail: string, cause?: unknown) {
    super(driver, backend, cause);
    this.message =
      `the ${backend} store needs the native binding of "${driver}", which is installed but ` +
      `not built for this Node.js (${detail}): run \`npm rebuild ${driver}\` in your project ` +
      '(it compiles with node-gyp: a C++ compiler, make and Python, e.g. `apt-get install ' +
      'build-essential python3`), or install it again without --ignore-scripts.';
    this.detail = detail;
  }
}

/**
 * `idforge_snowflake()` on a SQLite file (`registerIdforgeFunctions`): another thread or
 * process of this host already mints with this node and layout on the file. Two minters of
 * one node would repeat IDs (SQLite has no sequence to share while a statement runs), so the
 * second is refused; the node is free again when the holder's thread or process ends.
 */
export class NodeInUseError extends IdforgeError {
  /** The database file (its real path). */
  readonly path: string;
  readonly layout: string;
  readonly node: number;
  /** The claim file whose lock the holder keeps. */
  readonly claimPath: string;

  constructor(path: string, layout: string, node: number, claimPath: string) {
    super(
      'IDF_NODE_IN_USE',
      `idforge_snowflake() with node ${node} (layout ${layout}) on ${path} is refused: ` +
        'another thread or process of this host already mints with that node on this file ' +
        `(it holds the lock of ${claimPath}), and two minters of one node would repeat IDs. ` +
        'Register each thread or process with its own node (registerIdforgeFunctions(db, ' +
        '{ layout, node })), or mint in one of them; the node is free again once the ' +
        "holder's thread or process ends.",
    );
    this.path = path;
    this.layout = layout;
    this.node = node;
    this.claimPath = claimPath;
  }
}
