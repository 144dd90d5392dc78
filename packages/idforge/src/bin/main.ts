/**
 * The process around the command line: streams, signals, the exit code. The only code with
 * process-wide side effects; `idforge` (this package's bin) and `idforge-server` (the server
 * package's) both end here.
 *
 * `serve` takes SIGTERM and SIGINT from the first line of this module: a signal that arrives
 * while the commands still load is held and handed to the command as soon as it subscribes,
 * so that a stop sent at any moment of start-up ends the process cleanly instead of being
 * lost (issue 19). Other commands keep the default action (Ctrl-C ends them at once).
 *
 * `serve` also turns V8's concurrent marking off before the commands load (see
 * {@link serveHeapFlags}), and, started by npm, stops when npm does (see {@link watchParent}).
 */
import { setFlagsFromString } from 'node:v8';
import type { CliHost, CliIo } from '../cli/index.js';

/** What a bin runs: the command line's `run`, and the host lending the other packages. */
export interface BinOptions {
  readonly argv: readonly string[];
  readonly load: () => Promise<{
    run(argv: readonly string[], io: CliIo, host?: CliHost): Promise<number>;
  }>;
  readonly host?: CliHost;
}

/**
 * What `serve` asks of V8 before anything else loads: no concurrent marking, unless node was
 * started with `--concurrent-marking` (NODE_OPTIONS cannot carry V8's GC flags: node refuses
 * them there). On Node 20 (V8 11.3) a major GC marked concurrently while the service starts
 * leaves, in most processes, the objects behind `process.nextTick` off V8's fast path: each of
 * the seven or so ticks Node's HTTP code takes per request then goes through the runtime, and
 * `nextTick` alone took 7 % of a loaded server's CPU against 0.7 % with marking on the main
 * thread (CPU profiles of `idforge-server serve` under `count=1` load; docs/benchmarks.md).
 * Marking on the main thread is still incremental; the service's heap is small, so its major
 * GCs are rare.
 */
export function serveHeapFlags(execArgv: readonly string[] = process.execArgv): string | null {
  return execArgv.some((a) => /^--concurrent[-_]marking$/.test(a))
    ? null
    : '--no-concurrent-marking';
}

/** What `serve`'s listener gets, in place of a signal's name, when npm above it ended. */
export const PARENT_EXIT = 'parent-exit';

/**
 * Calls `onLost` once when the parent this process started under is gone, if npm started it
 * (npx, npm exec, npm run set npm_command); returns the function that stops watching.
 * npm runs a bin through `sh -c`: SIGTERM to npm (what systemd, a container runtime or a
 * process manager sends to the process it started) ends npm and that shell, not node, which
 * would serve on, orphaned, holding its lease. No signal tells a process its parent ended on
 * Linux's Node, so the parent's ID is polled (a cheap getppid): it changes when the process is
 * adopted (by PID 1 or a subreaper). Only under npm: `idforge-server &` then leaving the shell
 * (nohup, a daemon) must keep serving, and a supervisor starting node itself signals node.
 */
export function watchParent(
  env: Readonly<Record<string, string | undefined>>,
  onLost: () => void,
  everyMs = 500,
): () => void {
  if (env.npm_command === undefined) return () => undefined;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onLost();
  }, everyMs).unref();
  return () => clearInterval(timer);
}

/** Runs the command line as the process: sets the exit code, ends a stuck `serve`. */
export async function binMain(options: BinOptions): Promise<void> {
  const serving = options.argv[0] === 'serve';
  const flags = serving ? serveHeapFlags() : null;
  if (flags !== null) setFlagsFromString(flags);
  const held: string[] = [];
  const listeners = new Set<(signal: string) => void>();
  const early = (signal: string) => {
    if (listeners.size === 0) held.push(signal);
    for (const listener of listeners) listener(signal);
  };
  if (serving) process.on('SIGTERM', early).on('SIGINT', early);
  const unwatch = serving ? watchParent(process.env, () => early(PARENT_EXIT)) : () => undefined;

  const { run } = await options.load();

  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  process.exitCode = await run(
    options.argv,
    {
      stdout: process.stdout,
      stderr: process.stderr,
      stdin: process.stdin,
      env: process.env,
      onSignal: (listener) => {
        if (!serving) {
          const handler = (signal: NodeJS.Signals) => listener(signal);
          process.on('SIGTERM', handler).on('SIGINT', handler);
          return () => process.off('SIGTERM', handler).off('SIGINT', handler);
        }
        listeners.add(listener);
        for (const signal of held.splice(0)) listener(signal);
        return () => listeners.delete(listener);
      },
    },
    options.host ?? {},
  );
  unwatch();
  if (serving) {
    process.off('SIGTERM', early).off('SIGINT', early);
    // The service has stopped and closed what it opened; should a driver still hold a socket
    // open, the process ends anyway rather than linger after its stop.
    setTimeout(() => {
      process.stderr.write('idforge serve: handles still open 2 s after the stop; exiting\n');
      process.exit();
    }, 2000).unref();
  }
}
