export { adminSessionCookie } from './admin.cookie.js';
export { adminRoutes } from './admin.routes.js';
export { type AdminService, createAdminService, pruneExpiredAdminSessions } from './admin.service.js';
export { adminDashboardRoutes } from './admin.static.js';
