/** Admin routes (an admin token always): tags and their steps, leases. */
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import {
  defineNumberFormat,
  describeFormat,
  MAX_TAG_LENGTH,
  type ResetPeriod,
} from 'idforge/sequences';
import type { RouteDeps } from '../../deps.js';
import { buffersJson, type TagState } from '../../domain/sequences.js';
import { routePlugin } from '../plugins/plugin.js';
import { createTagSchema, listLeasesSchema, listTagsSchema, setStepSchema } from '../schemas.js';
import { holderOf } from './leases.js';

const admin = { access: 'admin' as const };

/** A tag and its buffers as JSON (numbers as decimal strings). */
export function tagJson(s: TagState): Record<string, unknown> {
  const b = s.buffer;
  return {
    tag: s.tag.tag,
    maxId: s.tag.maxId.toString(),
    step: s.tag.step,
    description: s.tag.description,
    updatedAtMs: s.tag.updatedAtMs,
    buffer: b === null ? null : { ...buffersJson(b), loading: b.loading, step: b.step },
  };
}

interface CreateTagBody {
  readonly step: number;
  readonly start?: string;
  readonly description?: string;
  readonly format?: string;
  readonly reset?: ResetPeriod;
  readonly timeZone?: string;
  readonly prefix?: string;
}

/**
 * The description a new tag is stored with: a formatted tag's format inside it (as `idforge
 * seq create --format` stores it). A bad format is RangeError (400), before the tag is made.
 */
function storedDescription(tag: string, body: CreateTagBody): string | undefined {
  const { format, reset, timeZone, prefix, description } = body;
  if (format === undefined) {
    if ((reset ?? timeZone ?? prefix) !== undefined) {
      throw new RangeError('reset, timeZone, prefix: expected them with a format, got no format');
    }
    return description;
  }
  const f = defineNumberFormat(format, {
    ...(reset === undefined ? {} : { reset }),
    ...(timeZone === undefined ? {} : { timeZone }),
    ...(prefix === undefined ? {} : { prefix }),
  });
  if (f.reset !== 'never' && tag.length > MAX_TAG_LENGTH - 11) {
    throw new RangeError(
      `tag: expected at most ${MAX_TAG_LENGTH - 11} characters for a format that resets (its periods are TAG:PERIOD), got ${tag.length}`,
    );
  }
  return describeFormat(f, description);
}

/** POST and PATCH `/v1/sequences/{tag}`: create a tag, change its step (segment stores). */
function tagRoutes(app: FastifyInstance, { sequences, events }: RouteDeps): void {
  app.post<{ Params: { tag: string }; Body: CreateTagBody }>(
    '/v1/sequences/:tag',
    { schema: createTagSchema, config: admin },
    async (req, reply) => {
      const body = req.body ?? { step: 1000 };
      const { step, start } = body;
      const tag = await sequences.create(
        req.params.tag,
        step,
        start === undefined ? undefined : BigInt(start),
        storedDescription(req.params.tag, body),
      );
      events.record(
        'info',
        'service',
        `tag "${tag.tag}" created by "${req.principal?.name}" (step ${tag.step})`,
      );
      reply.code(201);
      return tagJson({ tag, buffer: null });
    },
  );
  app.patch<{ Params: { tag: string }; Body: { step: number } }>(
    '/v1/sequences/:tag',
    { schema: setStepSchema, config: admin },
    async (req) => {
      const tag = await sequences.setStep(req.params.tag, req.body.step);
      events.record(
        'info',
        'service',
        `step of "${tag.tag}" set to ${tag.step} by "${req.principal?.name}"`,
      );
      return tagJson(await sequences.get(tag.tag));
    },
  );
}

/** GET `/v1/leases`: every worker-ID lease in the lease store, this process's marked `self`. */
function leaseRoute(app: FastifyInstance, { leaseStore }: RouteDeps): void {
  app.get('/v1/leases', { schema: listLeasesSchema, config: admin }, async () => {
    const host = hostname();
    const leases = await leaseStore.list();
    return {
      leases: leases.map((l) => ({
        workerId: l.workerId,
        instanceId: l.instanceId,
        token: holderOf(l.instanceId).token,
        host: l.host,
        pid: l.pid,
        startedAtMs: l.startedAtMs,
        expiresAtMs: l.expiresAtMs,
        markMs: l.markMs,
        self: l.host === host && l.pid === process.pid,
      })),
    };
  });
}

export const adminRoutes = routePlugin('admin', async (app: FastifyInstance, deps: RouteDeps) => {
  tagRoutes(app, deps);
  app.get('/v1/sequences', { schema: listTagsSchema, config: admin }, async () => ({
    tags: (await deps.sequences.list()).map(tagJson),
  }));
  leaseRoute(app, deps);
});
