import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A local Stripe API speaking its wire format, for the official `stripe` SDK pointed at it with
 * STRIPE_API_BASE: form-encoded request bodies (`metadata[order_id]=…`), `Authorization: Bearer
 * <secret key>`, `Idempotency-Key` honoured (the same key answers the first response again, with
 * `Idempotent-Replayed: true`; another body under it is a 400 `idempotency_error`), JSON objects and
 * error bodies shaped like Stripe's. PaymentIntents (create, retrieve, cancel) and refunds.
 * Fault switches answer 500 or hold requests without answering; `signEvent` signs webhook events
 * with Stripe's scheme.
 */

export interface StripeRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  /** The form body, keys as sent (`metadata[order_id]`). */
  form: Record<string, string>;
}

export interface FakePaymentIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: string;
  status: string;
  client_secret: string;
  metadata: Record<string, string>;
  latest_charge: string | null;
  created: number;
  livemode: false;
}

export interface FakeRefund {
  id: string;
  object: 'refund';
  amount: number;
  currency: string;
  status: string;
  payment_intent: string;
  charge: string | null;
  reason: string | null;
  metadata: Record<string, string>;
  created: number;
}

/** What the fake does with the next matching requests: answer 500, or hold them unanswered. */
export type StripeFault = { kind: 'status'; status: number } | { kind: 'hang' };

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

function metadataOf(form: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(form)) {
    const m = /^metadata\[(.+)\]$/.exec(key);
    if (m?.[1]) out[m[1]] = value;
  }
  return out;
}

const stripeError = (status: number, type: string, message: string, code?: string) => ({
  status,
  body: { error: { type, message, ...(code ? { code } : {}) } },
});

export async function startFakeStripe(options: { secretKeys?: string[] } = {}) {
  const keys = new Set(options.secretKeys ?? []);
  const intents = new Map<string, FakePaymentIntent>();
  const refunds = new Map<string, FakeRefund>();
  const idempotent = new Map<string, { form: string; status: number; body: unknown }>();
  const requests: StripeRequest[] = [];
  const sockets = new Set<Socket>();
  const held: http.ServerResponse[] = [];
  let fault: { fault: StripeFault; path: RegExp; remaining: number } | undefined;
  const waiters: { path: RegExp; resolve: (r: StripeRequest) => void }[] = [];

  function route(req: StripeRequest): { status: number; body: unknown } {
    const { method, path, form } = req;
    const token = /^Bearer (.+)$/.exec(req.authorization ?? '')?.[1];
    if (!token || (keys.size > 0 && !keys.has(token)))
      return stripeError(
        401,
        'invalid_request_error',
        `Invalid API Key provided: ${token?.slice(0, 8) ?? ''}***`,
      );
    if (method === 'POST' && path === '/v1/payment_intents') {
      const amount = Number(form.amount);
      if (!Number.isInteger(amount) || amount < 1)
        return stripeError(
          400,
          'invalid_request_error',
          'Invalid integer: amount',
          'parameter_invalid_integer',
        );
      const pi: FakePaymentIntent = {
        id: id('pi'),
        object: 'payment_intent',
        amount,
        amount_received: 0,
        currency: form.currency ?? 'usd',
        status: 'requires_payment_method',
        client_secret: '',
        metadata: metadataOf(form),
        latest_charge: null,
        created: now(),
        livemode: false,
      };
      pi.client_secret = `${pi.id}_secret_${randomBytes(8).toString('hex')}`;
      intents.set(pi.id, pi);
      return { status: 200, body: pi };
    }
    const one = /^\/v1\/payment_intents\/([^/]+)(\/cancel)?$/.exec(path);
    if (one?.[1]) {
      const pi = intents.get(one[1]);
      if (!pi)
        return stripeError(
          404,
          'invalid_request_error',
          `No such payment_intent: '${one[1]}'`,
          'resource_missing',
        );
      if (method === 'GET' && !one[2]) return { status: 200, body: pi };
      if (method === 'POST' && one[2]) {
        if (pi.status === 'succeeded' || pi.status === 'canceled')
          return stripeError(
            400,
            'invalid_request_error',
            `You cannot cancel this PaymentIntent because it has a status of ${pi.status}.`,
            'payment_intent_unexpected_state',
          );
        pi.status = 'canceled';
        return { status: 200, body: pi };
      }
    }
    if (method === 'GET' && path === '/v1/refunds') {
      const data = [...refunds.values()]
        .filter((r) => !form.payment_intent || r.payment_intent === form.payment_intent)
        .reverse();
      return { status: 200, body: { object: 'list', data, has_more: false, url: '/v1/refunds' } };
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const pi = intents.get(form.payment_intent ?? '');
      if (pi?.status !== 'succeeded')
        return stripeError(
          400,
          'invalid_request_error',
          'This PaymentIntent has no successful charge to refund',
          'charge_not_refundable',
        );
      const already = [...refunds.values()]
        .filter((r) => r.payment_intent === pi.id)
        .reduce((a, r) => a + r.amount, 0);
      const amount = form.amount ? Number(form.amount) : pi.amount_received - already;
      if (amount < 1 || already + amount > pi.amount_received)
        return stripeError(
          400,
          'invalid_request_error',
          'Refund amount is greater than unrefunded amount',
          'amount_too_large',
        );
      const refund: FakeRefund = {
        id: id('re'),
        object: 'refund',
        amount,
        currency: pi.currency,
        status: 'succeeded',
        payment_intent: pi.id,
        charge: pi.latest_charge,
        reason: form.reason ?? null,
        metadata: metadataOf(form),
        created: now(),
      };
      refunds.set(refund.id, refund);
      return { status: 200, body: refund };
    }
    return stripeError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path})`);
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(request.url ?? '/', 'http://stripe.local');
      const req: StripeRequest = {
        method: request.method ?? 'GET',
        path: url.pathname,
        authorization: request.headers.authorization,
        idempotencyKey: request.headers['idempotency-key'] as string | undefined,
        form: Object.fromEntries(new URLSearchParams(request.method === 'GET' ? url.search : raw)),
      };
      requests.push(req);
      for (const w of waiters.splice(0).filter((w) => {
        if (w.path.test(req.path)) return true;
        waiters.push(w);
        return false;
      }))
        w.resolve(req);
      const send = (status: number, body: unknown, replayed = false) => {
        response.writeHead(status, {
          'content-type': 'application/json',
          'request-id': id('req'),
          ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
        });
        response.end(JSON.stringify(body));
      };
      const active = fault && fault.remaining > 0 && fault.path.test(req.path) ? fault : undefined;
      if (active) active.remaining--;
      if (active?.fault.kind === 'status') {
        send(active.fault.status, { error: { type: 'api_error', message: 'An unknown error occurred' } });
        return;
      }
      // Stripe's idempotency: the same key and body answer the first response again.
      const key =
        req.idempotencyKey && req.method === 'POST'
          ? `${req.authorization} ${req.idempotencyKey}`
          : undefined;
      const stored = key ? idempotent.get(key) : undefined;
      let answer: { status: number; body: unknown; replayed: boolean };
      if (stored) {
        answer =
          stored.form === raw
            ? { ...stored, replayed: true }
            : {
                ...stripeError(
                  400,
                  'idempotency_error',
                  'Keys for idempotent requests can only be used with the same parameters they were first used with.',
                ),
                replayed: false,
              };
      } else {
        const result = route(req);
        if (key && result.status < 500) idempotent.set(key, { form: raw, ...result });
        answer = { ...result, replayed: false };
      }
      // A hang still does the work (Stripe received it), but the answer never comes.
      if (active?.fault.kind === 'hang') {
        held.push(response);
        return;
      }
      send(answer.status, answer.body, answer.replayed);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    intents,
    refunds,
    /** Accept this secret key (none added: any Bearer key is accepted). */
    allowKey: (key: string) => keys.add(key),
    /** The next `times` requests whose path matches answer 500 or hang. */
    fail(f: StripeFault, path = /.*/, times = Number.POSITIVE_INFINITY) {
      fault = { fault: f, path, remaining: times };
    },
    heal() {
      fault = undefined;
    },
    /** Resolves at the next request whose path matches. */
    nextRequest: (path: RegExp) => new Promise<StripeRequest>((resolve) => waiters.push({ path, resolve })),
    /** The buyer paid in the browser: the PaymentIntent succeeds with a charge. */
    succeed(piId: string) {
      const pi = intents.get(piId);
      if (!pi) throw new Error(`no PaymentIntent ${piId}`);
      pi.status = 'succeeded';
      pi.amount_received = pi.amount;
      pi.latest_charge = id('ch');
      return pi;
    },
    /** A refund made in Stripe's dashboard (not through our API). */
    dashboardRefund(piId: string, amount: number): FakeRefund {
      const pi = intents.get(piId);
      if (!pi) throw new Error(`no PaymentIntent ${piId}`);
      const refund: FakeRefund = {
        id: id('re'),
        object: 'refund',
        amount,
        currency: pi.currency,
        status: 'succeeded',
        payment_intent: pi.id,
        charge: pi.latest_charge,
        reason: 'requested_by_customer',
        metadata: {},
        created: now(),
      };
      refunds.set(refund.id, refund);
      return refund;
    },
    /**
     * The charge of a PaymentIntent as `charge.refunded` carries it in current API versions: without
     * its refunds (the receiver lists them with GET /v1/refunds).
     */
    chargeOf(piId: string) {
      const pi = intents.get(piId);
      if (!pi) throw new Error(`no PaymentIntent ${piId}`);
      const list = [...refunds.values()].filter((r) => r.payment_intent === piId);
      const refunded = list.reduce((a, r) => a + r.amount, 0);
      return {
        id: pi.latest_charge ?? id('ch'),
        object: 'charge',
        amount: pi.amount_received,
        amount_refunded: refunded,
        currency: pi.currency,
        payment_intent: pi.id,
        metadata: pi.metadata,
        refunded: refunded >= pi.amount_received,
        refunds: {
          object: 'list',
          data: list,
          has_more: false,
          url: `/v1/charges/${pi.latest_charge}/refunds`,
        },
      };
    },
    async close() {
      for (const r of held.splice(0)) r.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    /** Releases held requests by dropping their connections. */
    releaseHeld() {
      for (const r of held.splice(0)) r.destroy();
    },
  };
}

export type FakeStripe = Awaited<ReturnType<typeof startFakeStripe>>;

/** A Stripe event as Stripe posts it to a webhook endpoint. */
export function stripeEvent(type: string, object: unknown, eventId = id('evt')) {
  return JSON.stringify({
    id: eventId,
    object: 'event',
    api_version: '2025-01-27.acacia',
    created: now(),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  });
}

/** `Stripe-Signature` of Stripe's scheme: `t=<unix>,v1=<hex HMAC-SHA256 of "t.payload" keyed with the secret>`. */
export function signStripeEvent(payload: string, secret: string, timestamp = now()): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

/** Keys shaped as Stripe issues them. */
export function stripeKeys() {
  const tail = () => randomBytes(12).toString('hex');
  return {
    secret_key: `sk_test_${tail()}`,
    publishable_key: `pk_test_${tail()}`,
    webhook_secret: `whsec_${randomBytes(24)
      .toString('base64')
      .replace(/[^0-9A-Za-z]/g, 'x')}`,
  };
}
