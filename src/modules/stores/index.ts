import { registerConstraintConflict } from '../../platform/http/errors.js';

registerConstraintConflict('stores_custom_domain_key', 'another store already uses this custom domain');
registerConstraintConflict('admin_users_email_key', 'a user with this e-mail already exists');

export { hostOfHeader } from './custom-domains.js';
export { DOMAIN_CHECKS_PER_MINUTE, domainCheckRoutes } from './domain-check.routes.js';
export { DUMMY_HASH, hashPassword, needsRehash, verifyPassword } from './passwords.js';
export { StoreClosedError } from './store-closed.js';
export {
  DEFAULT_STORE_COLORS,
  STORE_COLOR_NAMES,
  type StoreColorName,
  type StoreColors,
  storeColors,
} from './store-colors.js';
export { DELETION_LEASE_MS, type StoreDeletionOptions, storeDeletionJobs } from './store-deletion.js';
export { parseScopes } from './store-input.js';
export { createStoreLifecycle, type LifecycleOptions, type StoreLifecycle } from './store-lifecycle.js';
export { storeApiRoutes } from './store-settings.routes.js';
export {
  adminEmailTaken,
  createStoreWithOwner,
  firstFreeSlug,
  slugBaseOf,
  storeLocale,
} from './store-signup.js';
export { actorNames as storeActorNames } from './stores.repository.js';
export { storesRoutes } from './stores.routes.js';
export {
  createStoresService,
  type StoreRow,
  type StoresService,
} from './stores.service.js';
export type { MemberRole } from './stores.tables.js';
export type { CreateStoreInput, StoreSettingsPatch, StoresOptions } from './stores.types.js';
