import { registerConstraintConflict } from '../../platform/http/errors.js';

registerConstraintConflict('products_store_slug_key', 'a product with this slug already exists');
registerConstraintConflict('categories_store_slug_key', 'a category with this slug already exists');

export { categoryForStorefront } from './catalog.serializers.js';
export { categoriesRoutes } from './categories.routes.js';
export { type CategoriesService, createCategoriesService } from './categories.service.js';
export { productsRoutes } from './products.routes.js';
export {
  type CartProductFacts,
  createProductsService,
  type ImageRehoster,
  type OrderableProduct,
  type OrderableVariant,
  type ProductsService,
} from './products.service.js';
