export { hashPassword, verifyPassword } from './passwords.js';
export { storesRoutes } from './stores.routes.js';
export {
  createStoresService,
  parseScopes,
  type StoreRow,
  type StoreSettingsPatch,
  type StoresService,
} from './stores.service.js';
