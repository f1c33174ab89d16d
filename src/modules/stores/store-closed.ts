import { AppError, forbidden } from '../../platform/http/errors.js';

/**
 * A suspended store to its shoppers (storefront, cart, checkout, customer and mobile APIs): 503
 * `unavailable`. Without Retry-After: it opens again when an operator says so, not in seconds. The
 * shop tells it apart from an outage by its class, and draws its "closed" page with the store's name.
 */
export class StoreClosedError extends AppError {
  constructor(readonly storeName: string) {
    super(503, 'unavailable', 'This store is closed');
  }
}

/** A suspended store to its merchants (its API keys and dashboard sessions): 403, saying why. */
export const storeSuspended = (reason: string | null) =>
  forbidden(`This store is suspended: ${reason ?? 'by the platform operator'}`);
