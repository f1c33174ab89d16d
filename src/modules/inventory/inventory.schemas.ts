import { Type } from 'typebox';
import { StringEnum } from '../../platform/http/envelopes.js';

export const StockStatus = StringEnum(['in_stock', 'low_stock', 'out_of_stock']);
const InventoryTypeSchema = StringEnum(['product', 'variant'], {
  description: '`product` (default) or `variant`',
});

export const InventoryQuery = Type.Object({ type: Type.Optional(InventoryTypeSchema) });

export const InventoryLevel = Type.Object(
  {
    id: Type.String(),
    type: InventoryTypeSchema,
    product_id: Type.String(),
    variant_id: Type.Union([Type.String(), Type.Null()]),
    inventory: Type.Integer(),
    track_inventory: Type.Boolean(),
    low_stock_threshold: Type.Integer(),
    stock_status: StockStatus,
    variants: Type.Optional(
      Type.Array(
        Type.Object({
          id: Type.String(),
          title: Type.String(),
          sku: Type.Union([Type.String(), Type.Null()]),
          inventory: Type.Integer(),
          stock_status: StockStatus,
        }),
      ),
    ),
  },
  { $id: 'InventoryLevel' },
);

export const InventoryAdjustmentBody = Type.Object(
  {
    type: Type.Optional(InventoryTypeSchema),
    adjustment: Type.Integer({
      not: { const: 0 },
      minimum: -1_000_000_000,
      maximum: 1_000_000_000,
      description: 'Non-zero integer change to apply',
    }),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const InventoryAdjustmentResult = Type.Object({
  id: Type.String(),
  type: InventoryTypeSchema,
  previous: Type.Integer(),
  adjustment: Type.Integer(),
  inventory: Type.Integer(),
  stock_status: StockStatus,
});

export const InventoryAdjustmentRecord = Type.Object({
  id: Type.String(),
  product_id: Type.String(),
  variant_id: Type.Union([Type.String(), Type.Null()]),
  previous: Type.Integer(),
  adjustment: Type.Integer(),
  inventory: Type.Integer(),
  reason: Type.Union([Type.String(), Type.Null()]),
  source: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});
