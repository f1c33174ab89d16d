import type { Migration, MigrationProvider } from 'kysely';
import * as foundation from './2026_11_22_0001_foundation.js';
import * as catalog from './2026_11_22_0002_catalog.js';
import * as idempotency from './2026_11_22_0003_idempotency.js';
import * as discounts from './2026_11_23_0004_discounts.js';
import * as orders from './2026_11_23_0005_orders.js';
import * as webhooks from './2026_11_23_0006_webhooks.js';
import * as customerAccounts from './2026_11_23_0007_customer_accounts.js';
import * as adminSessions from './2026_11_23_0009_admin_sessions.js';
import * as analytics from './2026_11_23_0010_analytics.js';
import * as uuidV7 from './2026_11_23_0011_uuid_v7.js';
import * as expiryIndexes from './2026_11_25_0012_expiry_indexes.js';
import * as idempotencyResource from './2026_11_25_0013_idempotency_resource.js';
import * as tenantForeignKeys from './2026_11_25_0020_tenant_foreign_keys.js';
import * as paymentStatuses from './2026_11_25_0021_payment_statuses.js';
import * as carts from './2026_11_25_0022_carts.js';
import * as stripePayments from './2026_11_25_0023_stripe_payments.js';
import * as refunds from './2026_11_25_0024_refunds.js';
import * as storeCustomDomains from './2026_11_26_0025_store_custom_domains.js';
import * as productCounts from './2026_11_26_0027_product_counts.js';
import * as analyticsRebuildJoins from './2026_11_28_0030_analytics_rebuild_joins.js';
import * as orderHistory from './2026_11_28_0034_order_history.js';
import * as webhookLastTest from './2026_11_28_0035_webhook_last_test.js';
import * as regions from './2026_11_28_0036_regions.js';
import * as analyticsShippingTax from './2026_11_28_0040_analytics_shipping_tax.js';
import * as notifications from './2026_12_07_0041_notifications.js';
import * as teamsPlatform from './2026_12_07_0042_teams_platform.js';

/** The static, ordered list of migrations: the same for the embedded cluster and any PostgreSQL. */
const migrations: Record<string, Migration> = {
  '2026_11_22_0001_foundation': foundation,
  '2026_11_22_0002_catalog': catalog,
  '2026_11_22_0003_idempotency': idempotency,
  '2026_11_23_0004_discounts': discounts,
  '2026_11_23_0005_orders': orders,
  '2026_11_23_0006_webhooks': webhooks,
  '2026_11_23_0007_customer_accounts': customerAccounts,
  '2026_11_23_0009_admin_sessions': adminSessions,
  '2026_11_23_0010_analytics': analytics,
  '2026_11_23_0011_uuid_v7': uuidV7,
  '2026_11_25_0012_expiry_indexes': expiryIndexes,
  '2026_11_25_0013_idempotency_resource': idempotencyResource,
  '2026_11_25_0020_tenant_foreign_keys': tenantForeignKeys,
  '2026_11_25_0021_payment_statuses': paymentStatuses,
  '2026_11_25_0022_carts': carts,
  '2026_11_25_0023_stripe_payments': stripePayments,
  '2026_11_25_0024_refunds': refunds,
  '2026_11_26_0025_store_custom_domains': storeCustomDomains,
  '2026_11_26_0027_product_counts': productCounts,
  '2026_11_28_0030_analytics_rebuild_joins': analyticsRebuildJoins,
  '2026_11_28_0034_order_history': orderHistory,
  '2026_11_28_0035_webhook_last_test': webhookLastTest,
  '2026_11_28_0036_regions': regions,
  '2026_11_28_0040_analytics_shipping_tax': analyticsShippingTax,
  '2026_12_07_0041_notifications': notifications,
  '2026_12_07_0042_teams_platform': teamsPlatform,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
