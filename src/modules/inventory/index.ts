export { inventoryRoutes } from './inventory.routes.js';
export { StockStatus as StockStatusSchema } from './inventory.schemas.js';
export {
  createInventoryService,
  type InventoryPorts,
  type InventoryService,
  type LowStockMailer,
  type Restocked,
  type RestockPort,
  type StockChange,
} from './inventory.service.js';
export { type StockStatus, stockStatus } from './stock-status.js';
