/**
 * The API shapes the dashboard uses (snake_case, as /api/v1 and /api/admin answer), named over the
 * types generated from the server's route schemas (./schema.ts, `npm run gen:admin-types`). A name
 * here that the server's document no longer has fails `tsc -p admin`.
 *
 * Precision: money stays as the API sends it (order amounts are JSON numbers in the currency's
 * decimals, catalogue prices and store amounts decimal strings): the document cannot say more than
 * `number` / `string`. The order records type their statuses as plain strings, so OrderSummary and
 * Order narrow them to the values the GET /api/v1/orders filters list.
 */
import type { components, paths } from './schema';

type Schemas = components['schemas'];

/** The JSON body of one answer. */
type Json<R extends { content: { 'application/json': unknown } }> = R['content']['application/json'];
/** The `data` of an operation's 200 answer. */
type Data<Op extends { responses: { 200: { content: { 'application/json': { data: unknown } } } } }> = Json<
  Op['responses'][200]
>['data'];
/** The JSON body an operation accepts. */
type RequestBody<Op extends { requestBody?: { content: { 'application/json': unknown } } }> = Json<
  NonNullable<Op['requestBody']>
>;

/** Compiles only when the list names every member of T: a value the server adds cannot be missed. */
function everyOf<T extends string>() {
  return <const L extends readonly T[]>(
    list: L & ([Exclude<T, L[number]>] extends [never] ? unknown : { missing: Exclude<T, L[number]> }),
  ): L => list;
}

export type Session = Data<paths['/api/admin/me']['get']>;
export type StoreRef = Session['store'];
export type StoreSettings = Data<paths['/api/admin/store']['get']>;

export type ApiKey = Data<paths['/api/admin/api-keys']['get']>[number];
export type CreatedApiKey = Json<paths['/api/admin/api-keys']['post']['responses'][201]>['data'];
export type ApiScope = RequestBody<paths['/api/admin/api-keys']['post']>['scopes'][number];

export type Product = Schemas['Product'];
export type ProductStatus = Product['status'];
export type ProductImage = Product['images'][number];
export type Variant = Product['variants'][number];

export type InventoryLevel = Schemas['InventoryLevel'];
export type StockStatus = InventoryLevel['stock_status'];
export type InventoryAdjustment = Data<paths['/api/v1/inventory/{id}/adjustments']['get']>[number];

export type Category = Schemas['Category'];

export type Discount = Schemas['Discount'];
export type DiscountType = Discount['type'];

export type Customer = Schemas['Customer'];
export type Address = Customer['addresses'][number];

type OrderFilters = NonNullable<paths['/api/v1/orders']['get']['parameters']['query']>;
export type OrderStatus = NonNullable<OrderFilters['status']>;
export type PaymentStatus = NonNullable<OrderFilters['payment_status']>;
export type FulfillmentStatus = NonNullable<OrderFilters['fulfillment_status']>;

interface OrderStatuses {
  status: OrderStatus;
  payment_status: PaymentStatus;
  fulfillment_status: FulfillmentStatus;
}
/** An order record with its three statuses narrowed (they must still be strings in the document). */
type WithStatuses<T extends Record<keyof OrderStatuses, string>> = Omit<T, keyof OrderStatuses> &
  OrderStatuses;

export type OrderSummary = WithStatuses<Schemas['OrderSummary']>;
export type Order = WithStatuses<Schemas['Order']>;
export type OrderCustomer = Order['customer'];
export type ShippingAddress = NonNullable<Order['shipping_address']>;
export type LineItem = Order['line_items'][number];
export type Fulfillment = Order['fulfillments'][number];

export type Refund = Schemas['Refund'];
export type RefundBody = RequestBody<paths['/api/v1/orders/{id}/refunds']['post']>;

export type EditItemsBody = RequestBody<paths['/api/v1/orders/{id}/edit-items']['post']>;
export type EditItemsResult = Data<paths['/api/v1/orders/{id}/edit-items']['post']>;
export type TimelineEntry = Data<paths['/api/v1/orders/{id}/timeline']['get']>[number];

/** The events a webhook can subscribe to by name (the API also accepts `*`). */
export type WebhookEvent = Exclude<RequestBody<paths['/api/v1/webhooks']['post']>['events'][number], '*'>;
export const WEBHOOK_EVENTS = everyOf<WebhookEvent>()([
  'order.created',
  'order.paid',
  'order.updated',
  'order.cancelled',
  'order.refunded',
  'product.low_stock',
  'product.out_of_stock',
]);

export type Webhook = Schemas['Webhook'];
export type StripeSettings = Schemas['StripeSettings'];
export type DeliveryAttempt = Schemas['DeliveryAttempt'];

export type Analytics = Data<paths['/api/v1/analytics']['get']>;
export type AnalyticsTotals = Analytics['totals'];

/** The scopes an API key may carry, in the order the key form shows them. */
export const SCOPES = everyOf<ApiScope>()([
  'orders:read',
  'orders:write',
  'products:read',
  'products:write',
  'inventory:read',
  'inventory:write',
  'customers:read',
  'discounts:read',
  'discounts:write',
  'analytics:read',
  'webhooks:read',
  'webhooks:write',
  'mobile:write',
  'settings:read',
  'settings:write',
  'storefront:read',
  'customer:read',
  'customer:write',
]);

/** ISO 3166 names from the server (GET /api/admin/countries): the dashboard bundles no list of its own. */
export type Country = Data<paths['/api/admin/countries']['get']>[number];
export type CountryWithSubdivisions = Data<paths['/api/admin/countries/{code}']['get']>;

/** Shipping zones with their rates, and tax regions (contract §12). */
export type ShippingZone = Schemas['ShippingZone'];
export type ShippingRate = ShippingZone['rates'][number];
export type TaxRegion = Schemas['TaxRegion'];

/** E-mails to buyers and to the store (contract §13): templates per kind, previews, and the log. */
export type NotificationTemplate = Data<paths['/api/v1/notifications/templates/{kind}']['get']>;
export type NotificationKind = NotificationTemplate['kind'];
export type RenderedMessage = Data<paths['/api/v1/notifications/templates/{kind}/preview']['post']>;
export type NotificationRecord = Data<paths['/api/v1/notifications']['get']>[number];
/** The kinds, in the contract's order (five to the buyer, then two to the store). */
export const NOTIFICATION_KINDS = everyOf<NotificationKind>()([
  'order_confirmation',
  'shipping_confirmation',
  'order_cancelled',
  'refund_issued',
  'back_in_stock',
  'new_order',
  'low_stock',
]);

/** GET /api/admin/onboarding: the first steps of a new store, each derived from its data. */
export type OnboardingChecklist = Data<paths['/api/admin/onboarding']['get']>;
export type OnboardingItemKey = OnboardingChecklist['items'][number]['key'];
