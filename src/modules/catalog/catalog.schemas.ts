import { Type } from 'typebox';
import { cursorQuery } from '../../platform/http/cursor.js';
import { IdFilter, Nullable, PageQuery, StringEnum } from '../../platform/http/envelopes.js';
import { MoneyInput } from '../../platform/http/money-input.js';
import { ERROR_HINT } from '../../platform/http/validation-messages.js';
import { StockStatusSchema } from '../inventory/index.js';
import { SLUG_PATTERN } from './slug.js';

export { MoneyInput };

const Id = Type.String({ minLength: 1, maxLength: 100 });
/** Grams as PostgreSQL's integer holds them (contract §12: shipping rates by weight). */
const weightGrams = (description: string) =>
  Type.Integer({ minimum: 0, maximum: 2_147_483_647, description });
const Status = StringEnum(['active', 'draft', 'archived']);
const Slug = Type.String({
  pattern: SLUG_PATTERN,
  maxLength: 100,
  [ERROR_HINT]: 'must be lowercase letters, digits and single hyphens, such as summer-tees',
});
/** Names are trimmed when stored, so one made only of spaces would be empty. */
const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });

const ImageInput = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    alt: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    is_primary: Type.Optional(Type.Boolean()),
    media_type: Type.Optional(
      StringEnum(['image', 'video'], {
        description: '`video` stores the URL as given (never downloaded)',
      }),
    ),
  },
  { additionalProperties: false },
);

const OptionInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    values: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      minItems: 1,
      maxItems: 100,
      uniqueItems: true,
    }),
  },
  { additionalProperties: false },
);

const VariantInput = Type.Object(
  {
    id: Type.Optional(Id),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    sku: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    price: Type.Optional(MoneyInput),
    compare_price: Type.Optional(Nullable(MoneyInput)),
    inventory: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
    weight_grams: Type.Optional(Nullable(weightGrams("The variant's weight in grams; null: its product's"))),
    options: Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 100 }), {
      maxProperties: 3,
      description: 'Option name → value, one per product option (at most 3)',
    }),
  },
  { additionalProperties: false },
);

const productFields = {
  name: Name,
  slug: Slug,
  description: Type.String({ maxLength: 100_000 }),
  status: Status,
  price: MoneyInput,
  compare_price: Nullable(MoneyInput),
  sku: Nullable(Type.String({ maxLength: 100 })),
  inventory: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }),
  track_inventory: Type.Boolean(),
  low_stock_threshold: Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
  weight_grams: weightGrams('Weight in grams, for shipping rates by weight (default 0)'),
  taxable: Type.Boolean({ description: 'Whether tax is charged on this product (default true)' }),
  category_ids: Type.Array(Id, { maxItems: 100, uniqueItems: true }),
  images: Type.Array(ImageInput, { maxItems: 50 }),
  download_images: Type.Boolean({
    description: 'Fetch images, convert to WebP and re-host them (default false)',
  }),
  options: Type.Array(OptionInput, { maxItems: 3 }),
  variants: Type.Array(VariantInput, { maxItems: 100 }),
};

const { name, price, ...optionalProductFields } = productFields;
const O = Type.Optional;
const f = optionalProductFields;

export const ProductCreateBody = Type.Object(
  {
    name,
    price,
    slug: O(f.slug),
    description: O(f.description),
    status: O(f.status),
    compare_price: O(f.compare_price),
    sku: O(f.sku),
    inventory: O(f.inventory),
    track_inventory: O(f.track_inventory),
    low_stock_threshold: O(f.low_stock_threshold),
    weight_grams: O(f.weight_grams),
    taxable: O(f.taxable),
    category_ids: O(f.category_ids),
    images: O(f.images),
    download_images: O(f.download_images),
    options: O(f.options),
    variants: O(f.variants),
  },
  { additionalProperties: false },
);

export const ProductUpdateBody = Type.Partial(Type.Object(productFields, { additionalProperties: false }), {
  additionalProperties: false,
  minProperties: 1,
});

export const Product = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    description: Type.String(),
    status: Status,
    price: Type.String(),
    compare_price: Nullable(Type.String()),
    sku: Nullable(Type.String()),
    inventory: Type.Integer(),
    track_inventory: Type.Boolean(),
    low_stock_threshold: Nullable(Type.Integer()),
    weight_grams: Type.Integer(),
    taxable: Type.Boolean(),
    stock_status: StockStatusSchema,
    category_ids: Type.Array(Type.String()),
    images: Type.Array(
      Type.Object({
        id: Type.String(),
        url: Type.String(),
        alt: Nullable(Type.String()),
        is_primary: Type.Boolean(),
        position: Type.Integer(),
      }),
    ),
    media: Type.Array(
      Type.Object({ id: Type.String(), url: Type.String(), media_type: Type.Literal('video') }),
    ),
    options: Type.Array(Type.Object({ name: Type.String(), values: Type.Array(Type.String()) })),
    variants: Type.Array(
      Type.Object({
        id: Type.String(),
        title: Type.String(),
        sku: Nullable(Type.String()),
        price: Type.String(),
        compare_price: Nullable(Type.String()),
        inventory: Type.Integer(),
        weight_grams: Nullable(
          Type.Integer({
            description: "The variant's own weight in grams; null: it weighs what its product does",
          }),
        ),
        options: Type.Record(Type.String(), Type.String()),
      }),
    ),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Product' },
);

export const ProductListQuery = Type.Object({
  ...PageQuery,
  ...cursorQuery,
  status: Type.Optional(Status),
  category_id: Type.Optional(IdFilter('Products in this category')),
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Matches name or SKU, case-insensitive' })),
});

export const Category = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    description: Type.String(),
    parent_id: Nullable(Type.String()),
    position: Type.Integer(),
    product_count: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Category' },
);

const categoryFields = {
  name: Name,
  slug: Slug,
  description: Type.String({ maxLength: 10_000 }),
  parent_id: Nullable(Id),
  position: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
};

export const CategoryCreateBody = Type.Object(
  {
    name: categoryFields.name,
    slug: Type.Optional(categoryFields.slug),
    description: Type.Optional(categoryFields.description),
    parent_id: Type.Optional(categoryFields.parent_id),
    position: Type.Optional(categoryFields.position),
  },
  { additionalProperties: false },
);

export const CategoryUpdateBody = Type.Partial(Type.Object(categoryFields, { additionalProperties: false }), {
  additionalProperties: false,
  minProperties: 1,
});

export const CategoryListQuery = Type.Object({
  ...PageQuery,
  parent_id: Type.Optional(
    IdFilter('Children of this category; `root` for top-level ones', { orLiteral: 'root' }),
  ),
});
