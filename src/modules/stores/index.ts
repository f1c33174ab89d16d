import { registerConstraintConflict } from '../../platform/http/errors.js';

registerConstraintConflict('stores_custom_domain_key', 'another store already uses this custom domain');

export { hostOfHeader } from './custom-domains.js';
export { hashPassword, verifyPassword } from './passwords.js';
export { storesRoutes } from './stores.routes.js';
export {
  createStoresService,
  parseScopes,
  type StoreRow,
  type StoreSettingsPatch,
  type StoresOptions,
  type StoresService,
} from './stores.service.js';
