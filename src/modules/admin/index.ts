export { adminSessionCookie } from './admin.cookie.js';
export { adminRoutes } from './admin.routes.js';
export { AdminSession, type AdminSessionView, adminSessionBody } from './admin.schemas.js';
export {
  type AdminService,
  createAdminService,
  effectiveScopes,
  pruneExpiredAdminSessions,
} from './admin.service.js';
export { adminDashboardRoutes } from './admin.static.js';
