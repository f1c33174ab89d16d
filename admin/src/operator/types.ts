/**
 * The operator API's shapes (contract §14, /api/operator): hand-written because the console is a
 * second entry of the dashboard's build and reads only these few answers.
 */
export interface Operator {
  id: string;
  email: string;
}

export type StoreStatus = 'active' | 'suspended';

/** An item of GET /api/operator/stores: revenue in the store currency's minor units. */
export interface OperatorStore {
  id: string;
  slug: string;
  name: string;
  owner_email: string | null;
  status: StoreStatus;
  created_at: string;
  products_count: number;
  orders_30d: number;
  revenue_30d: number;
  currency: string;
  last_activity_at: string | null;
}

/** GET /api/operator/stores/{id}: the list item and what only the store's page shows. */
export interface OperatorStoreDetail extends OperatorStore {
  timezone: string;
  custom_domain: string | null;
  suspended_at: string | null;
  suspension_reason: string | null;
  members_count: number;
}

export interface StoreList {
  data: OperatorStore[];
  next_cursor: string | null;
}
