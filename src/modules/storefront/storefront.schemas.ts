import { Type } from 'typebox';
import { Nullable, PageQuery, StringEnum } from '../../platform/http/envelopes.js';
import { MAX_JSON_DEPTH } from '../../platform/http/input-guard.js';
import { StorefrontPayments } from '../payments/index.js';

export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
export const ProductSlugParams = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 100 }),
  productSlug: Type.String({ minLength: 1, maxLength: 200 }),
});

export const StorefrontConfig = Type.Object({
  name: Type.String(),
  slug: Type.String(),
  logo: Nullable(Type.String()),
  colors: Type.Object({
    primary: Type.String(),
    secondary: Type.String(),
    accent: Type.String(),
    background: Type.String(),
    text: Type.String(),
  }),
  currency: Type.String(),
  payments: StorefrontPayments,
});

export const StorefrontProductQuery = Type.Object({
  ...PageQuery,
  sort: Type.Optional(StringEnum(['newest', 'price_asc', 'price_desc', 'name'], { default: 'newest' })),
  category: Type.Optional(Type.String({ maxLength: 100, description: 'Category slug' })),
  q: Type.Optional(Type.String({ maxLength: 200 })),
});

export const StorefrontProductSummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  price: Type.String(),
  comparePrice: Nullable(Type.String()),
  priceVaries: Type.Boolean({
    description:
      'The variants cost different amounts: `price` is the lowest one in stock (of all when none is), so show it as "from"',
  }),
  image: Nullable(Type.String()),
  inStock: Type.Boolean(),
});

const Image = Type.Object({
  id: Type.String(),
  url: Type.String(),
  alt: Nullable(Type.String()),
  isPrimary: Type.Boolean(),
  position: Type.Integer(),
});

export const StorefrontProductPage = Type.Object({
  product: Type.Object({
    id: Type.String(),
    name: Type.String(),
    slug: Type.String(),
    description: Type.String(),
    price: Type.String(),
    comparePrice: Nullable(Type.String()),
    sku: Nullable(Type.String()),
    inStock: Type.Boolean(),
    options: Type.Array(Type.Object({ name: Type.String(), values: Type.Array(Type.String()) })),
    categoryIds: Type.Array(Type.String()),
    videos: Type.Array(Type.Object({ id: Type.String(), url: Type.String() })),
  }),
  variants: Type.Array(
    Type.Object({
      id: Type.String(),
      title: Type.String(),
      sku: Nullable(Type.String()),
      price: Type.String(),
      comparePrice: Nullable(Type.String()),
      inStock: Type.Boolean(),
      options: Type.Record(Type.String(), Type.String()),
    }),
  ),
  images: Type.Array(Image),
});

export const StorefrontCategory = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  parentId: Nullable(Type.String()),
  productCount: Type.Integer(),
});

export const APP_CONFIG_LIMIT = 64 * 1024;

export const AppConfig = Type.Record(Type.String(), Type.Unknown(), {
  description: `Any JSON object: at most 64 KiB (larger is 413), nested at most ${MAX_JSON_DEPTH} levels and without NUL characters (400 naming the field)`,
});
