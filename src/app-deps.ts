import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { RefundGateway } from './modules/orders/index.js';
import type { Db } from './platform/db/database.js';
import type { RateLimitStore } from './platform/http/rate-limit.js';

/** What the composition root is given: configuration, the database, and the process's shared parts. */
export interface AppDeps {
  config: Config;
  db: Db;
  logger: Logger;
  rateLimitStore: RateLimitStore;
  /** Gateways of providers that hold the money, besides the built-in ones (tests add their own). */
  refundGateways?: RefundGateway[];
  /** Keep the custom-domain directory current (default true; not for the OpenAPI build or a CLI command). */
  watchCustomDomains?: boolean;
  /**
   * The pool behind `db`, for a serving process: catalogue changes are exchanged with the other
   * processes of the database (change-feed.ts), so their cached storefront answers and shop pages
   * follow this one's changes and this one's follow theirs. Without it only this process's own
   * changes drop its cached answers; others' show within the caches' TTL.
   */
  pool?: pg.Pool;
  /** `off`: writes leave no audit row. For the audit bench's baseline only (bench/scenarios/audit-writes.ts), never a deployment. */
  auditLog?: 'off';
}
