import type Stripe from 'stripe';
import { assertOutsideTransaction } from '../../platform/db/transaction.js';

type StripeSdk = typeof import('stripe').default;

/**
 * The SDK (about 35 MB resident once loaded) is imported when a store first uses Stripe: a server
 * whose stores never connect Stripe never loads it.
 */
let sdk: StripeSdk | undefined;
let loading: Promise<StripeSdk> | undefined;
export function loadStripeSdk(): Promise<StripeSdk> {
  loading ??= import('stripe').then(({ default: loaded }) => {
    sdk = loaded;
    return loaded;
  });
  return loading;
}

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
const outsideTransactionsHttpClient = (Sdk: StripeSdk) =>
  class OutsideTransactionsHttpClient extends Sdk.HttpClient {
    private readonly inner = Sdk.createNodeHttpClient();

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
  };
let HttpClient: ReturnType<typeof outsideTransactionsHttpClient> | undefined;

/** A Stripe client for one secret key, aimed at `apiBase`. */
export async function createStripeClient(secretKey: string, options: StripeApiOptions): Promise<Stripe> {
  const Sdk = await loadStripeSdk();
  HttpClient ??= outsideTransactionsHttpClient(Sdk);
  const base = new URL(options.apiBase);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  return new Sdk(secretKey, {
    host: base.hostname,
    port: base.port || (protocol === 'http' ? 80 : 443),
    protocol,
    timeout: options.timeoutMs,
    // Every request we send carries an idempotency key, so the SDK's retry of a network error or a
    // 5xx cannot charge or refund twice; one retry keeps the worst case near twice the timeout.
    maxNetworkRetries: 1,
    telemetry: false,
    httpClient: new HttpClient(),
  });
}

/** Verifies a webhook's `Stripe-Signature` (Stripe's scheme, 5 minutes tolerance) and parses the event. */
export async function verifyStripeEvent(
  payload: string,
  signature: string,
  webhookSecret: string,
): Promise<Stripe.Event> {
  return (await loadStripeSdk()).webhooks.constructEvent(payload, signature, webhookSecret, 300);
}

/** Why a Stripe call failed, for logs and merchants: never the key. */
export function stripeFailure(error: unknown): string {
  if (isStripeError(error)) {
    const cause = (error.detail as { message?: unknown } | undefined)?.message;
    return `${error.type}${error.statusCode ? ` (HTTP ${error.statusCode})` : ''}: ${error.message}${
      typeof cause === 'string' ? ` (${cause})` : ''
    }`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** A StripeError can only come from the SDK: none exists before it was loaded. */
export function isStripeError(error: unknown): error is Stripe.errors.StripeError {
  return sdk !== undefined && error instanceof sdk.errors.StripeError;
}
