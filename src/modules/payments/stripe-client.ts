import Stripe from 'stripe';
import { assertOutsideTransaction } from '../../platform/db/transaction.js';

/** Where the SDK sends its requests (STRIPE_API_BASE) and how long it waits for each (STRIPE_TIMEOUT_MS). */
export interface StripeApiOptions {
  /** `https://api.stripe.com` by default; a proxy or a local fake in tests. */
  apiBase: string;
  timeoutMs: number;
}

type RequestArgs = Parameters<Stripe.HttpClient['makeRequest']>;

/**
 * The SDK's own Node HTTP client, refusing to send while a database transaction is open in the
 * calling async context: a Stripe call inside a transaction (and so possibly under a row lock) is a
 * bug that fails loudly at its first run instead of holding locks for up to the SDK's timeout.
 */
class OutsideTransactionsHttpClient extends Stripe.HttpClient {
  private readonly inner = Stripe.createNodeHttpClient();

  override getClientName(): string {
    return this.inner.getClientName();
  }

  override makeRequest(...args: RequestArgs) {
    try {
      assertOutsideTransaction('a Stripe API call');
    } catch (error) {
      // Rejected, not thrown: the SDK reports a rejection as the call's error (StripeConnectionError
      // with this as its `detail`); a synchronous throw would escape its promise chain.
      return Promise.reject(error);
    }
    return this.inner.makeRequest(...args);
  }
}

/** A Stripe client for one secret key, aimed at `apiBase`. */
export function createStripeClient(secretKey: string, options: StripeApiOptions): Stripe {
  const base = new URL(options.apiBase);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(secretKey, {
    host: base.hostname,
    port: base.port || (protocol === 'http' ? 80 : 443),
    protocol,
    timeout: options.timeoutMs,
    // Every request we send carries an idempotency key, so the SDK's retry of a network error or a
    // 5xx cannot charge or refund twice; one retry keeps the worst case near twice the timeout.
    maxNetworkRetries: 1,
    telemetry: false,
    httpClient: new OutsideTransactionsHttpClient(),
  });
}

/** Verifies a webhook's `Stripe-Signature` (Stripe's scheme, 5 minutes tolerance) and parses the event. */
export function verifyStripeEvent(payload: string, signature: string, webhookSecret: string): Stripe.Event {
  return Stripe.webhooks.constructEvent(payload, signature, webhookSecret, 300);
}

/** Why a Stripe call failed, for logs and merchants: never the key. */
export function stripeFailure(error: unknown): string {
  if (error instanceof Stripe.errors.StripeError) {
    const cause = (error.detail as { message?: unknown } | undefined)?.message;
    return `${error.type}${error.statusCode ? ` (HTTP ${error.statusCode})` : ''}: ${error.message}${
      typeof cause === 'string' ? ` (${cause})` : ''
    }`;
  }
  return error instanceof Error ? error.message : String(error);
}
