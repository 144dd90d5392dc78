/**
 * The graceful stop of a listening service (docs/service.md, "Shutdown"): drain the HTTP side
 * (drain.ts), then release the leases with their marks and close the stores with what is left
 * of `shutdownTimeoutMs` (at least a second), logging how it went.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceConfig } from './config/config.js';
import { drainOf } from './http/drain.js';
import type { EventLog } from './metrics/events.js';

/** How a stop went. */
export interface StopReport {
  /** Every lease released with its exact mark, within the shutdown bound. */
  readonly clean: boolean;
}

/** `p`, or `fallback` once `ms` have passed (the timer never keeps the process alive). */
function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((r) => {
    timer = setTimeout(() => r(fallback), Math.max(0, ms));
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Logs how the release went: `released` true, false (some lease not), null (no answer). */
function recordRelease(
  events: EventLog,
  released: boolean | null,
  leftMs: number,
  ttlMs: number,
): void {
  if (released === null) {
    events.record(
      'error',
      'service',
      `stopped without recording the marks: the stores did not answer within ${Math.round(leftMs)} ms; ` +
        `the leases expire by themselves within ${ttlMs} ms`,
    );
  } else if (released) {
    events.record('info', 'service', 'stopped: marks recorded, leases released');
  } else {
    events.record(
      'error',
      'service',
      'stopped, but not every lease was released (see above): they expire by themselves',
    );
  }
}

/** Drains `app`, then runs `release` (the leases and stores) within what is left of the bound. */
async function stop(
  app: FastifyInstance,
  release: () => Promise<boolean>,
  config: ServiceConfig,
  events: EventLog,
): Promise<StopReport> {
  const started = performance.now();
  const bound = config.shutdownTimeoutMs;
  events.record(
    'info',
    'service',
    'shutting down: finishing requests in flight; new requests get 503',
  );
  const report = await drainOf(app)!.drain(app, config.drainGraceMs, bound);
  if (report.forced > 0) {
    events.record(
      'warn',
      'service',
      `shutdown took over ${bound} ms; closed ${report.forced} connection(s) still open: a request in flight, or idle since the signal (their clients sent nothing)`,
    );
  }
  // The stores get what is left of the bound, and at least a second to release.
  const left = Math.max(1000, bound - (performance.now() - started));
  const released = await within(release(), left, null);
  recordRelease(events, released, left, config.ttlMs);
  return { clean: released === true };
}

/**
 * The stop of a listening service: `close()` stops it once (later calls get the same
 * report), and `closed` resolves with the report however the stop began.
 */
export function gracefulStop(
  app: FastifyInstance,
  release: () => Promise<boolean>,
  config: ServiceConfig,
  events: EventLog,
): { close(): Promise<StopReport>; readonly closed: Promise<StopReport> } {
  let closing: Promise<StopReport> | null = null;
  let resolveClosed!: (report: StopReport) => void;
  const closed = new Promise<StopReport>((r) => {
    resolveClosed = r;
  });
  const close = () => {
    closing ??= stop(app, release, config, events).then((report) => {
      resolveClosed(report);
      return report;
    });
    return closing;
  };
  return { close, closed };
}
