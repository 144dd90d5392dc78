// The service in tests: in-process (openService + buildApp, called with inject()) or as real
// `idforge serve` processes on port 0, whose JSON log lines are parsed for the listening URL.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import type { Clock } from '../../packages/idforge/src/core/index.js';
import type { BuildOptions } from '../../packages/server/src/service/http/app.js';
import {
  buildApp,
  type ConfigKey,
  openService,
  resolveConfig,
  type ServiceDeps,
} from '../../packages/server/src/service/index.js';
import { BINS, loader } from './bins.js';
import { injectThroughLane } from './lane-inject.js';
import { eachLine } from './lines.js';
import { tempDir } from './temp.js';

export interface TestService {
  readonly app: FastifyInstance;
  readonly deps: ServiceDeps;
  readonly dir: string;
  close(): Promise<void>;
}

/**
 * An app on a fresh SQLite file (unless `settings.store` says otherwise), not listening.
 * `settings` are config values as a file would give them; `env` as IDFORGE_* variables;
 * `build` as buildApp takes it (`fastLane: false` for a test that adds hooks of its own to
 * every route: the lane would not run them, so an app with the lane refuses them at start).
 */
export async function openTestService(
  settings: Record<string, unknown> = {},
  env: Record<string, string> = {},
  clock?: Clock,
  build: BuildOptions = {},
): Promise<TestService> {
  const t = tempDir('idforge-svc-');
  // The event-loop guard is off unless a test asks for it: a loaded CI machine can lag a
  // second, and a 503 for that would fail tests that are about something else.
  const values = {
    store: `sqlite:${join(t.dir, 'idforge.db')}`,
    logLevel: 'silent',
    maxEventLoopDelayMs: 0,
    ...settings,
  };
  const config = resolveConfig({ file: { path: 'test settings', values }, env });
  const opened = await openService(config, {
    logger: pino({ level: 'silent' }),
    ...(clock === undefined ? {} : { clock }),
  });
  const app = await buildApp(opened.deps, build);
  // app.inject() meets the fast lane where a client on a socket would (lane-inject.ts).
  injectThroughLane(app);
  return {
    app,
    deps: opened.deps,
    dir: t.dir,
    async close() {
      await app.close();
      await opened.close();
      t.remove();
    },
  };
}

export interface ServiceProc {
  readonly child: ChildProcess;
  /** Every log line, parsed. */
  readonly logs: Record<string, unknown>[];
  /** Resolves with the URL once listening; rejects if it exits first. */
  readonly ready: Promise<string>;
  /** Resolves with the exit code, or the signal's name. */
  readonly exited: Promise<number | string>;
  url: string;
  stderr: string;
}

/**
 * Starts `idforge serve` (from the sources, through scripts/dev-loader.mjs) with `args` and
 * `env` (merged into ours). The event-loop guard is off unless `args` set it
 * (`--max-event-loop-delay-ms`): on a busy machine its 503 (IDF_OVERLOADED) would fail tests
 * that are about something else; the guard's own tests set it.
 */
export function spawnService(
  args: readonly string[],
  env: Record<string, string> = {},
  cwd?: string,
): ServiceProc {
  const guard = args.some((a) => a.startsWith('--max-event-loop-delay-ms'))
    ? []
    : ['--max-event-loop-delay-ms', '0'];
  const child = spawn(
    process.execPath,
    ['--import', loader, BINS['idforge-server'], 'serve', '--port', '0', ...guard, ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
      ...(cwd === undefined ? {} : { cwd }),
    },
  );
  let onReady!: (url: string) => void;
  let onFail!: (e: Error) => void;
  const ready = new Promise<string>((res, rej) => {
    onReady = res;
    onFail = rej;
  });
  ready.catch(() => undefined);
  const proc: ServiceProc = {
    child,
    logs: [],
    ready,
    url: '',
    stderr: '',
    exited: new Promise((res) => {
      child.on('close', (code, signal) => {
        onFail(
          new Error(
            `idforge serve exited before listening (${signal ?? code}): ${proc.stderr.trim()}`,
          ),
        );
        res(code ?? signal ?? -1);
      });
    }),
  };
  eachLine(child.stdout!, (line) => {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      entry = { msg: line };
    }
    proc.logs.push(entry);
    const m = /^listening on (http:\/\/\S+)$/.exec(String(entry.msg));
    if (m !== null) {
      proc.url = m[1] as string;
      onReady(proc.url);
    }
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    proc.stderr += chunk;
  });
  return proc;
}

/** Config keys as flags, for spawnService. */
export function flags(values: Partial<Record<ConfigKey, string | number>>): string[] {
  return Object.entries(values).flatMap(([k, v]) => [
    `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
    String(v),
  ]);
}
