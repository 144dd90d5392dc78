/**
 * `idforge-shutdown`: the app's drain (drain.ts), installed before any route so that every
 * route's first hook and the 404 handler can refuse requests once a shutdown has begun.
 * Decorates the app with `drain`.
 */
import { type Drain, installDrain } from '../drain.js';
import { servicePlugin } from './plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The shutdown state: requests get 503 once `drain.closing`. */
    readonly drain: Drain;
  }
}

export const shutdownPlugin = servicePlugin('idforge-shutdown', async (app) => {
  app.decorate('drain', installDrain(app));
});
