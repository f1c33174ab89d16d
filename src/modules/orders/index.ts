export { CustomerOrder } from './customer-order.schema.js';
export { createOrderEditor } from './order-edit.js';
export { actorOf as orderActorOf } from './order-history.js';
export type { AppliedDiscount, DiscountCart, DiscountsPort, PricingDeps } from './order-pricing.js';
export { priceCart, regionalForStorefront, STOREFRONT_FIELDS } from './order-pricing.js';
export { customerOrdersRoutes } from './orders.customer.routes.js';
export {
  type HistoricOrderBatch,
  type HistorySource,
  importHistoricOrders,
} from './orders.import.js';
export { orderKey } from './orders.reads.js';
export { ordersRoutes } from './orders.routes.js';
export {
  type OrderDetails,
  orderForCustomer,
  orderForMerchant,
  orderSummaryForCustomer,
} from './orders.serializers.js';
export { createOrdersService, type OrdersService } from './orders.service.js';
export type { Address, OrderStatus, PaymentStatus } from './orders.tables.js';
export type {
  ExternalRefund,
  ProviderRefundRequest,
  ProviderRefundResult,
  RefundGateway,
} from './refund-gateway.js';
export { refundsRoutes } from './refunds.routes.js';
export { refundForMerchant } from './refunds.serializers.js';
export { quoteOf, type StorePricing } from './totals.js';
