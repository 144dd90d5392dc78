/**
 * `idforge-metrics`: every routed request counted in `idforge_http_requests_total` and timed
 * in `idforge_http_request_duration_seconds` by route, method and status, from a hook attached
 * as the route is declared (its URL captured once). A request no route matched is counted as
 * `unmatched` by the 404 handler and by the router's refusals (client-errors.ts).
 */
import type { ServiceDeps } from '../../deps.js';
import { type Hook, hooks, servicePlugin } from './plugin.js';

export const metricsPlugin = servicePlugin(
  'idforge-metrics',
  async (app, { metrics }: ServiceDeps) => {
    app.addHook('onRoute', (route) => {
      const url = route.url;
      // Named: the fast lane's start-up check knows the hot routes' hooks by name (hot-chain.ts).
      const idforgeMetrics: Hook = (req, reply, done) => {
        metrics.request(url, req.method, reply.statusCode, reply.elapsedTime / 1000);
        done();
      };
      route.onResponse = [...hooks(route.onResponse), idforgeMetrics];
    });
  },
);
