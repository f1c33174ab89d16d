import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { type AuditRow, type AuditWriter, PendingAudit, runWithPendingAudit } from '../audit-trail.js';
import type { Executor } from '../db/database.js';
import type { RequestContext } from './context.js';

export interface AuditRecordingOptions {
  /** Inserts the row (the audit module's insert, given by the composition root). */
  write: AuditWriter;
  /** For the few writes that use no transaction: their row is written on its own after them. */
  db: Executor;
}

/** What a write route records: its action, resource type, and the path parameter naming the resource. */
interface RouteAudit {
  action: string;
  resourceType: string;
  idParam: string | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    pendingAudit?: PendingAudit;
  }
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const snake = (words: string[]) => words.map((w) => w.toLowerCase()).join('_');

/**
 * `resource.verb` from an operationId of the form verbResource: `cancelOrder` → "order.cancel",
 * `createShippingZone` → "shipping_zone.create". Routes whose names read badly so override it
 * with `config.audit`.
 */
export function auditActionOf(operationId: string): { action: string; resourceType: string } {
  const [verb = operationId, ...rest] = operationId.split(/(?=[A-Z])/);
  const resourceType = rest.length > 0 ? snake(rest) : 'store';
  return { action: `${resourceType}.${verb.toLowerCase()}`, resourceType };
}

/**
 * What a route records, or undefined for a route that records nothing: reads, sign-in and sign-out
 * (`/auth/…`: sessions are not audited), and `config.audit: false` (a POST that changes nothing).
 */
export function routeAuditOf(route: Pick<RouteOptions, 'method' | 'url' | 'config' | 'schema'>) {
  const methods = [route.method].flat();
  if (!methods.some((m) => WRITES.has(m))) return undefined;
  const config = route.config as { audit?: { action?: string; resourceType?: string } | false } | undefined;
  if (config?.audit === false || route.url.includes('/auth/')) return undefined;
  const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
  const derived = operationId ? auditActionOf(operationId) : { action: 'unknown', resourceType: 'unknown' };
  const resourceType = config?.audit?.resourceType ?? derived.resourceType;
  const action = config?.audit?.action ?? `${resourceType}.${derived.action.split('.').at(-1)}`;
  // The resource is the last path parameter (`/webhooks/:id/deliveries/:deliveryId/retry` → the
  // delivery); a store's slug names the store, recorded by its id.
  const params = [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]).filter((p) => p !== 'slug');
  return { action, resourceType, idParam: params.at(-1) } satisfies RouteAudit;
}

const ACTOR_TYPES = { api_key: 'api_key', admin_user: 'user' } as const;

function entryOf(request: FastifyRequest, ctx: RequestContext, route: RouteAudit): Omit<AuditRow, 'id'> {
  const params = request.params as Record<string, string | undefined>;
  const pathId = route.idParam ? (params[route.idParam] ?? null) : null;
  return {
    storeId: ctx.storeId,
    actor: {
      type:
        ctx.actor.kind === 'api_key' || ctx.actor.kind === 'admin_user'
          ? ACTOR_TYPES[ctx.actor.kind]
          : 'system',
      id: ctx.actor.id,
      name: ctx.actorName ?? null,
    },
    action: route.action,
    resourceType: route.resourceType,
    resourceId: pathId ?? (route.resourceType === 'store' ? ctx.storeId : null),
    ip: request.ip ?? null,
  };
}

/**
 * The audit log's per-request recording (contract §14), for the routes of `app` (behind the merchant
 * auth hook): every write that succeeds leaves one row, written in the first transaction of the
 * request that commits (transaction.ts's commit rider), so a write rolled back leaves none. A write
 * without a transaction gets its row right after it succeeded (a 2xx), on its own. Replayed answers
 * (Idempotency-Key) record nothing: nothing was written.
 */
export function installAuditRecording(app: FastifyInstance, options: AuditRecordingOptions): void {
  const routes = new WeakMap<object, RouteAudit | null>();
  app.addHook('onRoute', (route) => {
    const audit = routeAuditOf(route);
    if (audit) {
      route.schema = { ...route.schema, 'x-audit-action': audit.action } as typeof route.schema;
    }
  });
  const auditOf = (request: FastifyRequest) => {
    const config = request.routeOptions.config;
    let audit = routes.get(config);
    if (audit === undefined) {
      const { method, url, schema } = request.routeOptions;
      audit =
        routeAuditOf({ method: method as RouteOptions['method'], url: url ?? '', config, schema }) ?? null;
      routes.set(config, audit);
    }
    return audit;
  };

  // Callback style, so that the handler runs inside the ALS context set here (as @fastify/request-context).
  app.addHook('preHandler', (request, _reply, done) => {
    const audit = WRITES.has(request.method) && request.ctx ? auditOf(request) : null;
    if (!audit) return done();
    const pending = new PendingAudit(entryOf(request, request.ctx, audit), options.write);
    request.pendingAudit = pending;
    runWithPendingAudit(pending, done);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const pending = request.pendingAudit;
    if (!pending || pending.written) return payload;
    if (reply.statusCode < 200 || reply.statusCode >= 300 || reply.getHeader('idempotent-replayed')) {
      return payload;
    }
    try {
      await pending.writeAlone(options.db);
    } catch (error) {
      // The write is done and its answer must reach the client; the lost row is logged.
      request.log.error({ err: error, audit: pending.entry }, 'could not write the audit row of a write');
    }
    return payload;
  });
}
