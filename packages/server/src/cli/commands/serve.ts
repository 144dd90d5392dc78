import { readFileSync } from 'node:fs';
import type { CliIo, Command } from 'idforge/cli';
import {
  type ClusterRole,
  CONFIG_KEYS,
  ConfigError,
  type ConfigKey,
  clusterRole,
  envName,
  flagName,
  resolveConfig,
  runPrimary,
  type ServiceConfig,
  startService,
  TOKEN_KEYS,
} from '../../service/index.js';
import { isPretty, logWriter } from '../log-format.js';

const FLAGLESS: readonly string[] = ['tokens'];
const BOOLEAN: readonly string[] = ['protectOps', 'migrate', 'hlc'];

/** A default as the help shows it: none for empty values, strings quoted. */
function shown(value: unknown): string {
  if (
    value === null ||
    value === '' ||
    (typeof value === 'object' && Object.keys(value).length === 0)
  ) {
    return '';
  }
  return ` (default ${typeof value === 'string' ? JSON.stringify(value) : String(value)})`;
}

/** One option per entry: the flag, its help and default, its variable (wrapped past 96 columns). */
function optionLines(): string {
  const width = 28;
  return Object.entries(CONFIG_KEYS)
    .filter(([key]) => !FLAGLESS.includes(key))
    .map(([key, spec]) => {
      const flag = BOOLEAN.includes(key) ? flagName(key) : `${flagName(key)} V`;
      const head = `  ${flag.padEnd(width)}${spec.help}${shown(spec.default)}`;
      const env = `env ${envName(key)}`;
      return head.length + env.length + 2 <= 96
        ? `${head}; ${env}`
        : `${head};\n${' '.repeat(width + 2)}${env}`;
    })
    .join('\n');
}

export const serveHelp = `Usage: idforge serve [options]

Runs the idforge ID service (docs/service.md): leases a worker ID from --store, waits until
the clock is past the worker ID's high-water mark, then serves HTTP: /v1/ids/{scheme},
/v1/sequences/{tag}, segments for clients, Meituan Leaf's /api routes, /healthz, /readyz,
/metrics, OpenAPI at /openapi.json and /docs, and a live dashboard at /. Logs are JSON lines
on standard output; on a terminal, one line at start (where it listens, the store, the
dashboard, the docs), then warnings and the stop (--log-format). SIGTERM or SIGINT (or,
started by npx or npm, npm's exit), at any point of start or while serving: answer new
requests 503, finish requests in flight, record the mark, release the lease, exit 0; exit 1
when a lease could not be released (the store was down: it expires by itself).

Settings come from defaults < --config FILE (JSON) < IDFORGE_* environment variables <
flags; an unknown key or a bad value is named at start (exit code 2). Tokens are set in the
config file, with these keys (docs/service.md, "Auth and limits"):
  "tokens": [{${TOKEN_KEYS.map((k) => `"${k}"`).join(',')}}]
or, for one admin token, IDFORGE_ADMIN_TOKEN.

Options:
  --config FILE               JSON settings file (keys as below, camelCase); env IDFORGE_CONFIG
${optionLines()}

Examples:
  idforge serve
  idforge serve --store postgres://idf@db/ids --migrate --port 8080
  curl -s 'http://127.0.0.1:8080/v1/ids/snowflake?count=3'
`;

/** parseArgs options of `serve`: one per configuration key. */
function serveOptions(): Record<string, { type: 'string' | 'boolean' }> {
  const out: Record<string, { type: 'string' | 'boolean' }> = { config: { type: 'string' } };
  for (const key of Object.keys(CONFIG_KEYS)) {
    if (FLAGLESS.includes(key)) continue;
    out[flagName(key).slice(2)] = { type: BOOLEAN.includes(key) ? 'boolean' : 'string' };
  }
  return out;
}

/**
 * `idforge serve`. Its flags are the configuration keys (CONFIG_KEYS, the service's), so its
 * option table is built at load and its values are those of any table.
 */
export const serveCli: Command = {
  summary: [
    'serve',
    'run the ID service: HTTP API, Leaf routes, metrics, dashboard\n(serve --help lists every setting)',
  ],
  help: serveHelp,
  options: serveOptions(),
  run: serveCommand,
};

function readConfigFile(path: string): { path: string; values: unknown } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError('config', `--config: cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return { path, values: JSON.parse(text) };
  } catch (error) {
    throw new ConfigError(
      'config',
      `--config: ${path} is not valid JSON: ${(error as Error).message}`,
    );
  }
}

/** The configuration of `serve`'s flags, variables and --config file. */
function configOf(values: Record<string, unknown>, env: Record<string, string | undefined>) {
  const flags: Partial<Record<ConfigKey, unknown>> = {};
  for (const key of Object.keys(CONFIG_KEYS) as ConfigKey[]) {
    const v = values[flagName(key).slice(2)];
    if (v !== undefined) flags[key] = v;
  }
  const path = (values.config as string | undefined) ?? env.IDFORGE_CONFIG;
  return resolveConfig({ ...(path ? { file: readConfigFile(path) } : {}), env, flags });
}

/** The exit code for a listen error (a line on stderr), or undefined for any other error. */
function listenFailure(error: unknown, config: ServiceConfig, io: CliIo): number | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') return undefined;
  const why =
    code === 'EADDRINUSE'
      ? 'is in use: stop the process listening there or pick another --port'
      : code === 'EACCES'
        ? 'needs privileges this user lacks: pick a port above 1023'
        : 'is not an address of this host: check --host';
  io.stderr.write(`idforge serve: ${config.host}:${config.port} ${why} [${code}]\n`);
  return 1;
}

/**
 * Serves until `signal` aborts: this process alone, the primary of `--processes N`, or one
 * of its processes (clusterRole). Resolves the exit code.
 */
async function serveAs(
  role: ClusterRole,
  config: ServiceConfig,
  write: (line: string) => void,
  signal: AbortSignal,
) {
  if (role.kind === 'primary') {
    const stopTimeoutMs = config.shutdownTimeoutMs + 5000;
    const { processes, host, port, rateLimit, rateWindowMs } = config;
    const limit = { rateLimit, rateWindowMs };
    return runPrimary({ processes, host, port, write, signal, stopTimeoutMs, ...limit });
  }
  const cluster = role.kind === 'process' ? { cluster: role.view } : {};
  try {
    const service = await startService(config, { write, signal, ...cluster });
    const report = await service.closed;
    return report.clean ? 0 : 1;
  } finally {
    if (role.kind === 'process') role.view.close();
  }
}

export async function serveCommand(
  positionals: string[],
  values: Record<string, unknown>,
  io: CliIo,
): Promise<number> {
  if (positionals.length > 0)
    throw new ConfigError('serve', `unexpected argument "${positionals[0]}"`);
  const env = io.env ?? {};
  const config = configOf(values, env);
  const stop = new AbortController();
  const pretty = isPretty(config.logFormat, io.stdout.isTTY);
  const write = logWriter(pretty, config.store, (chunk) => io.stdout.write(chunk));
  const log = (level: number, msg: string, extra: Record<string, unknown> = {}) =>
    write(`${JSON.stringify({ level, time: Date.now(), ...extra, msg })}\n`);
  let received: string | null = null;
  const unsubscribe = io.onSignal?.((signal) => {
    if (received !== null) {
      log(40, `received ${signal} again: already shutting down (bounded by shutdownTimeoutMs)`, {
        signal,
      });
      return;
    }
    received = signal;
    if (signal === 'parent-exit') {
      log(30, 'its parent process (npm) exited: shutting down as on SIGTERM', { signal });
    } else log(30, `received ${signal}: shutting down`, { signal });
    stop.abort();
  });
  const role = clusterRole(config.processes, env, () => {
    log(40, 'the primary process is gone: shutting down');
    stop.abort();
  });
  try {
    return await serveAs(role, config, write, stop.signal);
  } catch (error) {
    if (stop.signal.aborted) {
      // A signal during start: startService released what it had leased (and logged any lease
      // it could not release). Nothing was served: a clean stop.
      log(30, `start-up interrupted by ${received ?? 'the abort'}: stopped before serving`);
      return 0;
    }
    const exit = listenFailure(error, config, io);
    if (exit === undefined) throw error;
    return exit;
  } finally {
    unsubscribe?.();
  }
}
