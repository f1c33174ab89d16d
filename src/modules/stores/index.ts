export { hashPassword, verifyPassword } from './passwords.js';
export { createStoresService, parseScopes, type StoresService } from './stores.service.js';
