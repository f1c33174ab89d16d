export { adminRoutes } from './admin.routes.js';
export { type AdminService, createAdminService } from './admin.service.js';
export { adminDashboardRoutes } from './admin.static.js';
