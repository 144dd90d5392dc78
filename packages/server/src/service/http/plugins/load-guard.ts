/**
 * `idforge-load-guard`: the event-loop guard (lag.ts), when `maxEventLoopDelayMs` is on: its
 * timer runs while the app is open, and the gate sheds a guarded route's request while the
 * loop lags past the limit. Decorates the app with `loadGuard` (null when off).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ServiceDeps } from '../../deps.js';
import { LoopLag } from '../../metrics/lag.js';
import { errorJson, ServiceCode, statusOf } from '../errors.js';
import { servicePlugin } from './plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The event-loop guard, or null when maxEventLoopDelayMs is 0. */
    readonly loadGuard: LoopLag | null;
  }
}

/** Routes the event-loop guard never refuses: liveness and scraping matter most under load. */
const UNGUARDED = new Set(['/healthz', '/metrics']);

/** Whether the guard may refuse requests to the route at `url`. */
export function guarded(url: string): boolean {
  return !UNGUARDED.has(url);
}

/**
 * Answers 503 IDF_OVERLOADED with Retry-After. Answered here, not thrown: a shed request is
 * not an error to log, and under load there are many.
 */
export function shed(reply: FastifyReply, guard: LoopLag): void {
  const lag = Math.round(guard.lagMs);
  const message = `the node is overloaded (event loop ${lag} ms behind, limit ${guard.limitMs} ms); retry on another node`;
  reply.code(statusOf(ServiceCode.OVERLOADED)).header('retry-after', '1');
  reply.type('application/json; charset=utf-8').send(errorJson(ServiceCode.OVERLOADED, message));
}

/** The app's event-loop guard, if maxEventLoopDelayMs is on. */
export function loopLagOf(app: FastifyInstance): LoopLag | undefined {
  return app.loadGuard ?? undefined;
}

export const loadGuardPlugin = servicePlugin(
  'idforge-load-guard',
  async (app, { config }: ServiceDeps) => {
    const limit = config.maxEventLoopDelayMs;
    const guard = limit > 0 ? new LoopLag(limit) : null;
    app.decorate('loadGuard', guard);
    if (guard === null) return;
    guard.start();
    app.addHook('onClose', (_app, done) => {
      guard.stop();
      done();
    });
  },
);
