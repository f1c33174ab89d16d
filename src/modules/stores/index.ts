export { hashPassword, verifyPassword } from './passwords.js';
export { createStoresService, parseScopes, type StoreRow, type StoresService } from './stores.service.js';
