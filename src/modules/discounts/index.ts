import { registerConstraintConflict } from '../../platform/http/errors.js';

registerConstraintConflict('discounts_store_code_key', 'a discount with this code already exists');

export { discountsRoutes } from './discounts.routes.js';
export {
  type AppliedDiscount,
  type CheckoutCart,
  createDiscountsService,
  type DiscountsService,
  type ResolveInput,
} from './discounts.service.js';
export {
  bestAutomatic,
  type Cart,
  type CartLine,
  type DiscountRule,
  type DiscountType,
  type Evaluation,
  evaluate,
  type IneligibleReason,
} from './evaluate.js';
