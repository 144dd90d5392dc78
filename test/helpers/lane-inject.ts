// An injected request that takes the path a request on a socket takes: the app's fast lane
// first (packages/server/src/service/http/fast-lane.ts), then Fastify's router for whatever the lane
// does not take. Fastify's own app.inject() goes straight to the router, so a test of a hot
// route through it never meets the lane, which answers those routes in production.
import type { FastifyInstance } from 'fastify';
import inject, { type InjectOptions, type Response } from 'light-my-request';

/** Sends `options` to `app` as its HTTP server would: through the fast lane when it takes it. */
export async function laneInject(
  app: FastifyInstance,
  options: InjectOptions | string,
): Promise<Response> {
  await app.ready();
  const lane = app.fastLane;
  return inject(
    (req, res) => {
      if (lane?.take(req, res) === true) return;
      app.routing(req, res);
    },
    typeof options === 'string' ? { url: options } : options,
  );
}

/**
 * Makes `app.inject(options)` go through {@link laneInject}: every test of the app then meets
 * the lane where a client would. The chained form (`app.inject().get(...)`) stays Fastify's.
 */
export function injectThroughLane(app: FastifyInstance): void {
  const own = app.inject.bind(app);
  const through = (options?: InjectOptions | string) =>
    options === undefined ? own() : laneInject(app, options);
  Object.defineProperty(app, 'inject', { value: through, configurable: true, writable: true });
}
