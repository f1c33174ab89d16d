export { analyticsRoutes } from './analytics.routes.js';
export { type AnalyticsService, createAnalyticsService } from './analytics.service.js';
