import type { Static } from 'typebox';
import type { Db } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { currencyDecimals, toDecimalNumber } from '../../platform/money.js';
import type { CustomersService } from '../customers/index.js';
import { type OrdersService, type PricingDeps, priceCart, STOREFRONT_FIELDS } from '../orders/index.js';
import type { CheckoutBody } from './checkout.schemas.js';
import { PAYMENT_PROVIDERS } from './payments.js';

export type CheckoutInput = Static<typeof CheckoutBody>;

export interface CheckoutDeps extends PricingDeps {
  db: Db;
  orders: OrdersService;
  customers: CustomersService;
}

function addressOf(input: CheckoutInput['shippingAddress']) {
  if (!input) return null;
  return {
    first_name: input.firstName ?? null,
    last_name: input.lastName ?? null,
    line1: input.line1,
    line2: input.line2 ?? null,
    city: input.city,
    region: input.region ?? null,
    postal_code: input.postalCode,
    country: input.country.toUpperCase(),
    phone: input.phone ?? null,
  };
}

const itemsOf = (input: CheckoutInput) =>
  input.items.map((i) => ({ productId: i.productId, variantId: i.variantId, quantity: i.quantity }));

/** The storefront's checkout: a quote that creates nothing, and the order in one transaction. */
export function createCheckoutService(deps: CheckoutDeps) {
  return {
    /** What the order would cost now; the coupon is checked as at checkout. */
    async quote(storeId: string, input: CheckoutInput, customerId?: string) {
      const known = customerId ?? (await deps.customers.findByEmail(deps.db, storeId, input.email))?.id;
      const priced = await priceCart(deps, deps.db, storeId, {
        items: itemsOf(input),
        couponCode: input.couponCode,
        customerId: known ?? null,
        activeOnly: true,
        fields: STOREFRONT_FIELDS,
      });
      const decimals = currencyDecimals(priced.store.currency);
      const money = (minor: number) => toDecimalNumber(minor, decimals);
      return {
        currency: priced.store.currency,
        subtotal: money(priced.quote.subtotal),
        discountAmount: money(priced.quote.discount),
        shippingAmount: money(priced.quote.shipping),
        taxAmount: money(priced.quote.tax),
        total: money(priced.quote.total),
        couponCode: priced.discount?.code ?? null,
        lineItems: priced.lines.map((l) => ({
          productId: l.productId,
          variantId: l.variantId,
          name: l.name,
          variantTitle: l.variantTitle,
          sku: l.sku,
          quantity: l.quantity,
          price: money(l.price),
          total: money(l.price * l.quantity),
        })),
      };
    },

    /**
     * Places the order: stock is taken atomically (the last unit goes to one buyer), the payment is
     * taken before anything is written, and a declined card leaves no order, no stock change and no
     * coupon use behind.
     */
    checkout(ctx: RequestContext, input: CheckoutInput, customerId?: string) {
      const provider = PAYMENT_PROVIDERS[input.paymentMethod];
      return inTransaction(deps.db, (tx) =>
        deps.orders.placeOrder(tx, ctx.storeId, {
          idempotency: ctx.idempotency,
          customer: {
            id: customerId,
            email: input.email,
            first_name: input.firstName ?? null,
            last_name: input.lastName ?? null,
            phone: input.phone ?? null,
          },
          items: itemsOf(input),
          couponCode: input.couponCode,
          shippingAddress: addressOf(input.shippingAddress),
          notes: input.notes,
          paymentMethod: input.paymentMethod,
          activeOnly: true,
          fields: STOREFRONT_FIELDS,
          settle: (amount, currency) => provider.charge({ amount, currency, cardToken: input.cardToken }),
        }),
      );
    },

    /** An order placed by checkout, for the Idempotency-Key replay of its answer. */
    placed: (ctx: RequestContext, orderId: string) => deps.orders.get(ctx, orderId),
  };
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;
