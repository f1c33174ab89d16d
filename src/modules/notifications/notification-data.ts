import type { RequestContext } from '../../platform/http/context.js';
import type { OrderDetails, OrdersService } from '../orders/index.js';
import type { StoreRow, StoresService } from '../stores/index.js';
import type { NotificationKind } from './kinds.js';
import type { QueuedNotification } from './message.js';
import { previewVariables } from './sample-data.js';
import {
  customerOfOrder,
  type MerchantProduct,
  type NotificationVariables,
  orderVariables,
  productVariables,
  refundVariables,
  type StoreLinks,
  storeLinksOf,
  storeVariables,
} from './variables.js';

/** What the variables are read from: other modules' services, through their index. */
export interface NotificationDataDeps {
  /** PUBLIC_URL: the dashboard's links, and the shop's when the store has no custom domain. */
  publicUrl: string;
  stores: Pick<StoresService, 'getStore' | 'ownerEmail'>;
  orders: Pick<OrdersService, 'get' | 'getMany' | 'getRefund' | 'latest'>;
  products: { get(ctx: RequestContext, id: string): Promise<MerchantProduct> };
}

/** The kinds that name an order (their variables are read from it). */
export const ORDER_KINDS: readonly NotificationKind[] = [
  'order_confirmation',
  'shipping_confirmation',
  'order_cancelled',
  'refund_issued',
  'new_order',
];

/** The store's reads, as the system (no request): every read is still scoped to the store. */
const systemContext = (storeId: string): RequestContext => ({
  storeId,
  actor: { kind: 'system', id: 'notifications' },
  source: 'system',
  scopes: [],
});

/**
 * Reads the records a message names, at send time (outside any transaction), and turns them into
 * its template's variables; or, for previews and test sends, the store's latest order and samples.
 */
export function createNotificationData(deps: NotificationDataDeps) {
  const { stores, orders, products } = deps;

  function linksOf(store: StoreRow): StoreLinks {
    return storeLinksOf(store, deps.publicUrl);
  }

  async function orderKindVariables(
    n: QueuedNotification,
    store: StoreRow,
    links: StoreLinks,
    read: OrderDetails | undefined,
  ) {
    if (!n.order_id) throw new Error(`a ${n.kind} e-mail names no order`);
    const ctx = systemContext(n.store_id);
    // Read with others when the composer could (orders.getMany); else, or when not found, alone:
    // the order that is gone fails the message as it always did (404 order).
    const details = read ?? (await orders.get(ctx, n.order_id));
    const order = orderVariables(details, links);
    const variables: NotificationVariables = {
      currency: order.currency,
      store: storeVariables(store, links),
      order,
      customer: customerOfOrder(order),
    };
    if (n.kind === 'shipping_confirmation') {
      const id = n.refs.fulfillment_id;
      const shipment = id ? order.fulfillments.find((f) => f.id === id) : order.fulfillments.at(-1);
      if (!shipment) throw new Error(`order ${order.order_number} has no shipment ${id ?? ''}`.trim());
      variables.shipment = shipment;
    }
    if (n.kind === 'refund_issued') {
      if (!n.refs.refund_id) throw new Error('a refund_issued e-mail names no refund');
      const { refund } = await orders.getRefund(ctx, n.refs.refund_id);
      variables.refund = refundVariables(refund, details.order);
    }
    return variables;
  }

  async function productKindVariables(n: QueuedNotification, store: StoreRow, links: StoreLinks) {
    if (!n.refs.product_id) throw new Error(`a ${n.kind} e-mail names no product`);
    const product = productVariables(
      await products.get(systemContext(n.store_id), n.refs.product_id),
      n.refs.variant_id,
      links,
    );
    const variables: NotificationVariables = {
      currency: store.currency,
      store: storeVariables(store, links),
      product,
    };
    if (n.kind === 'low_stock') {
      variables.threshold = n.refs.threshold ?? store.low_stock_threshold;
      variables.quantity = n.refs.quantity ?? product.inventory;
    } else {
      variables.customer = {
        id: n.refs.customer_id ?? null,
        email: n.refs.subscription_email ?? n.to_email,
        first_name: null,
        last_name: null,
      };
    }
    return variables;
  }

  return {
    store: (storeId: string) => stores.getStore(storeId),
    linksOf,

    /** `Reply-To`: the store's contact e-mail, else its owner's (as the store's own e-mails go). */
    async replyTo(store: StoreRow): Promise<string | null> {
      if (store.contact_email) return store.contact_email;
      return (await stores.ownerEmail(store.id)) ?? null;
    },

    /**
     * The variables of a queued message (a test send: the preview's). `order`: the order it names,
     * when the caller read it already (with its lines and fulfillments, as orders.get reads it).
     */
    async forMessage(
      n: QueuedNotification,
      store: StoreRow,
      order?: OrderDetails,
    ): Promise<NotificationVariables> {
      const links = linksOf(store);
      if (n.test) return previewVariables(n.kind, store, links, await orders.latest(store.id));
      if (ORDER_KINDS.includes(n.kind)) return orderKindVariables(n, store, links, order);
      return productKindVariables(n, store, links);
    },

    /** The variables of a preview: the store's latest order, else sample data. */
    async forPreview(store: StoreRow, kind: NotificationKind): Promise<NotificationVariables> {
      return previewVariables(kind, store, linksOf(store), await orders.latest(store.id));
    },
  };
}

export type NotificationData = ReturnType<typeof createNotificationData>;
