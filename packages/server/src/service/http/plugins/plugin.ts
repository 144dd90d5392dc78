/**
 * The app's plugins name what they need. Each is a Fastify plugin with Fastify's own plugin
 * metadata (what fastify-plugin attaches, without the package): a name, the plugins that must
 * be registered before it, and the decorators it reads. Fastify checks both when the plugin is
 * registered, so an app built in the wrong order fails to start, naming the missing plugin,
 * instead of serving requests without a hook. A plugin is not encapsulated (its hooks,
 * handlers and decorators apply to the whole app) unless it says so: the route plugins do.
 */
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyPluginOptions,
  FastifyReply,
  FastifyRequest,
} from 'fastify';

/** The plugins of buildApp, by name. */
export type PluginName =
  | 'idforge-shutdown'
  | 'idforge-load-guard'
  | 'idforge-auth'
  | 'idforge-gate'
  | 'idforge-metrics'
  | 'idforge-errors'
  | 'idforge-limits'
  | 'idforge-docs';

export interface PluginMeta {
  /** Plugins registered before this one (Fastify refuses to register it otherwise). */
  readonly dependencies?: readonly PluginName[];
  /** Decorators this plugin reads, checked at registration. */
  readonly decorators?: {
    readonly fastify?: readonly string[];
    readonly request?: readonly string[];
  };
  /** Keep the plugin's routes and hooks to its own context (the route plugins). Default false. */
  readonly encapsulate?: boolean;
}

/** `fn` as a named plugin of the app, with its dependencies checked by Fastify. */
export function servicePlugin<O extends FastifyPluginOptions>(
  name: string,
  fn: (app: FastifyInstance, options: O) => Promise<void>,
  meta: PluginMeta = {},
): FastifyPluginAsync<O> {
  const plugin = Object.assign(fn, {
    [Symbol.for('skip-override')]: meta.encapsulate !== true,
    [Symbol.for('fastify.display-name')]: name,
    [Symbol.for('plugin-meta')]: {
      name,
      fastify: '5.x',
      dependencies: meta.dependencies ?? [],
      decorators: meta.decorators ?? {},
    },
  });
  return plugin as FastifyPluginAsync<O>;
}

/**
 * What a route plugin needs registered before it: every plugin that attaches hooks to a route
 * as it is declared (a route declared earlier would go without them), and the docs, which
 * list the routes as they are declared.
 */
const ROUTE_DEPENDENCIES: readonly PluginName[] = [
  'idforge-gate',
  'idforge-metrics',
  'idforge-errors',
  'idforge-limits',
  'idforge-docs',
];

/** The routes of one resource as a plugin (`idforge-routes-NAME`), in a context of its own. */
export function routePlugin<O extends FastifyPluginOptions>(
  name: string,
  fn: (app: FastifyInstance, options: O) => Promise<void>,
): FastifyPluginAsync<O> {
  return servicePlugin(`idforge-routes-${name}`, fn, {
    dependencies: ROUTE_DEPENDENCIES,
    encapsulate: true,
  });
}

/** A route hook in callback style (the cheapest Fastify runs). */
export type Hook = (
  req: FastifyRequest,
  reply: FastifyReply,
  done: (error?: Error) => void,
) => void;

/** A route option that may hold one hook or several, as a list. */
export function hooks(value: unknown): Hook[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? (value as Hook[]) : [value as Hook];
}
