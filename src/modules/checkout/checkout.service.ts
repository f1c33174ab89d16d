import type { Static } from 'typebox';
import type { Db, Tx } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { withStoredCountry } from '../../platform/http/country-input.js';
import { currencyDecimals, toDecimalNumber } from '../../platform/money.js';
import type { CustomersService } from '../customers/index.js';
import {
  type OrderDetails,
  type OrdersService,
  orderActorOf,
  type PricingDeps,
  priceCart,
  regionalForStorefront,
  STOREFRONT_FIELDS,
} from '../orders/index.js';
import {
  PAYMENT_METHODS,
  type PaymentMethod,
  type PaymentSession,
  type PaymentsService,
} from '../payments/index.js';
import type { CheckoutBody } from './checkout.schemas.js';

export type CheckoutInput = Static<typeof CheckoutBody>;

/** What a checkout answers: the order, and the payment session of a provider that confirms later. */
export interface CheckoutResult {
  placed: OrderDetails;
  payment: PaymentSession | null;
}

export interface CheckoutDeps extends PricingDeps {
  db: Db;
  orders: OrdersService;
  customers: CustomersService;
  payments: Pick<PaymentsService, 'provider'>;
}

function addressOf(input: CheckoutInput['shippingAddress']) {
  if (!input) return null;
  return withStoredCountry({
    first_name: input.firstName ?? null,
    last_name: input.lastName ?? null,
    line1: input.line1,
    line2: input.line2 ?? null,
    city: input.city,
    region: input.region ?? null,
    postal_code: input.postalCode,
    country: input.country,
    phone: input.phone ?? null,
  });
}

/** The provider an order was placed with (orders of other origins: none that confirms later). */
const methodOf = (placed: OrderDetails): PaymentMethod =>
  (PAYMENT_METHODS as readonly string[]).includes(placed.order.payment_method ?? '')
    ? (placed.order.payment_method as PaymentMethod)
    : 'manual';

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
        shippingAddress: input.shippingAddress ?? null,
        shippingRateId: input.shippingRateId ?? null,
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
        ...regionalForStorefront(priced.regional, money),
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
     * Phase (a) of a checkout, in the caller's transaction: the order is created and its stock taken
     * atomically (the last unit goes to one buyer). A provider that settles in-process (`test_card`)
     * is charged here, before any stock moves, so a refusal leaves no order, no stock change and no
     * coupon use behind; one that confirms later (`stripe`) leaves the order pending with its stock
     * held and records, in this same transaction, the payment it waits for. Carts complete through
     * this too, inside the transaction that closes the cart. Nothing here reaches the network.
     */
    async place(
      tx: Tx,
      ctx: RequestContext,
      input: CheckoutInput,
      customerId?: string,
    ): Promise<OrderDetails> {
      const provider = deps.payments.provider(input.paymentMethod);
      const placed = await deps.orders.placeOrder(tx, ctx.storeId, {
        idempotency: ctx.idempotency,
        by: orderActorOf(ctx),
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
        shippingRateId: input.shippingRateId ?? null,
        notes: input.notes,
        paymentMethod: input.paymentMethod,
        activeOnly: true,
        fields: STOREFRONT_FIELDS,
        awaitsPayment: provider.confirmsLater,
        sendReceipt: true,
        settle: (amount, currency) =>
          provider.charge({
            executor: tx,
            storeId: ctx.storeId,
            amount,
            currency,
            cardToken: input.cardToken,
          }),
      });
      await provider.hold?.(tx, placed);
      return placed;
    },

    /**
     * Phase (b), after commit, outside every transaction and row lock: a provider that confirms
     * later is asked for a payment session here (Stripe: a PaymentIntent). What the buyer is
     * answered. When the provider cannot be reached the order is cancelled, its stock put back, and
     * this throws 503.
     */
    async collect(ctx: RequestContext, placed: OrderDetails): Promise<CheckoutResult> {
      const provider = deps.payments.provider(methodOf(placed));
      return { placed, payment: provider.open ? await provider.open(ctx, placed) : null };
    },

    /** Both phases: the one-call form of "create cart + complete". */
    async checkout(ctx: RequestContext, input: CheckoutInput, customerId?: string): Promise<CheckoutResult> {
      const placed = await inTransaction(deps.db, (tx) => this.place(tx, ctx, input, customerId));
      return this.collect(ctx, placed);
    },

    /** An order placed by checkout as checkout answered it: Idempotency-Key replays, completed carts. */
    async placed(ctx: RequestContext, orderId: string): Promise<CheckoutResult> {
      const placed = await deps.orders.get(ctx, orderId);
      const provider = deps.payments.provider(methodOf(placed));
      return { placed, payment: provider.resume ? await provider.resume(ctx, placed) : null };
    },
  };
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;
