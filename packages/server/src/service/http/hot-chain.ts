/**
 * The start-up check that keeps the fast lane (fast-lane.ts) one with the routes: the lane does
 * the work of the hooks Fastify runs on a hot route, by calling what those hooks call
 * (admission.ts, auth.ts, rate-limit.ts, reply.ts, errors.ts, metrics.ts). A hook it does not
 * know (added to a hot route, or to the whole app) would be skipped on the lane, so the app
 * reads each hot route's hooks as Fastify will run them and refuses to start when they differ
 * from {@link knownHooks}: a check added to a hot route is then either added to the lane too or
 * made a step of a hook the lane calls.
 */
import type { FastifyInstance } from 'fastify';

/** The routes the lane answers (their plain GETs). */
export const HOT_ROUTES = [
  '/v1/ids/:scheme',
  '/api/snowflake/get/:key',
  '/api/segment/get/:key',
] as const;
export type HotRoute = (typeof HOT_ROUTES)[number];

/** A route's hooks: lifecycle hook name to the names of its functions, in order. */
export type HookChain = Readonly<Record<string, readonly string[]>>;

/**
 * The hooks of a hot route's GET whose work the lane does: the gate (plugins/gate.ts), the rate
 * limit when it is on (plugins/limits.ts), the request metrics (plugins/metrics.ts).
 */
export function knownHooks(rateLimited: boolean): HookChain {
  return {
    onRequest: ['idforgeGate'],
    ...(rateLimited ? { preHandler: ['idforgeRateLimit'] } : {}),
    onResponse: ['idforgeMetrics'],
  };
}

// Fastify's listing is a tree: each node a line indented four columns a level, its path the
// parent's followed by its label, its methods after it; each of its hooks a line below it.
const NODE_LINE = /^((?:[│ ] {3})*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/;
const HOOK_LINE = /^[│ ]*• \((\w+)\) (\[.*\])$/;

/**
 * Each GET route's hooks, from Fastify's route listing with its hooks (`printRoutes`, whose
 * lines name each hook's function): the chain Fastify runs, the app's hooks and the route's.
 * A listing this does not read finds no route, so the check fails closed.
 */
export function hookChains(app: FastifyInstance): Map<string, HookChain> {
  const printed = app.printRoutes({ method: 'GET', includeHooks: true, commonPrefix: false });
  const chains = new Map<string, Record<string, string[]>>();
  const paths: string[] = [];
  let current: Record<string, string[]> | null = null;
  for (const line of printed.split('\n')) {
    const node = NODE_LINE.exec(line);
    if (node !== null) {
      const depth = (node[1] as string).length / 4;
      paths[depth] = (depth === 0 ? '' : (paths[depth - 1] as string)) + (node[2] as string);
      paths.length = depth + 1;
      current = node[3]?.split(', ').includes('GET') === true ? {} : null;
      if (current !== null) chains.set(paths[depth] as string, current);
      continue;
    }
    const hook = HOOK_LINE.exec(line);
    if (hook === null || current === null) continue;
    const names = JSON.parse(hook[2] as string) as string[];
    current[hook[1] as string] = names.map((n) => n.replace(/\(\)$/, ''));
  }
  return chains;
}

/** What differs between a hot route's hooks and the lane's, one line each (none: the same). */
export function chainDifferences(chains: Map<string, HookChain>, known: HookChain): string[] {
  const out: string[] = [];
  const want = JSON.stringify(sorted(known));
  for (const route of HOT_ROUTES) {
    const chain = chains.get(route);
    if (chain === undefined) out.push(`GET ${route}: not found among the app's routes`);
    else if (JSON.stringify(sorted(chain)) !== want)
      out.push(`GET ${route} runs ${JSON.stringify(sorted(chain))}; the fast lane knows ${want}`);
  }
  return out;
}

function sorted(chain: HookChain): HookChain {
  return Object.fromEntries(Object.entries(chain).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * Throws unless every hot route runs the hooks the lane knows: the app then does not start
 * (its `ready()`, hence `listen()`, fails with the differences).
 */
export function checkHotChains(app: FastifyInstance, rateLimited: boolean): void {
  const out = chainDifferences(hookChains(app), knownHooks(rateLimited));
  if (out.length > 0)
    throw new Error(
      `the fast lane does not do what the hot routes' hooks do, so the app does not start:\n${out.join('\n')}\n(make the new check a step of a hook the lane calls, or teach the lane it: hot-chain.ts)`,
    );
}
