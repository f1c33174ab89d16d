import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { installPublicCaching } from '../../platform/http/cacheable.js';
import {
  DataEnvelope,
  ListEnvelope,
  listEnvelope,
  pageOf,
  pageQuery,
} from '../../platform/http/envelopes.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { installMerchantAuth, type MerchantAuthOptions } from '../../platform/http/merchant-auth.js';
import type { CategoriesService, ProductsService } from '../catalog/index.js';
import { categoryForStorefront } from '../catalog/index.js';
import type { PaymentsService } from '../payments/index.js';
import type { StoresService } from '../stores/index.js';
import { storeColors } from './storefront.colors.js';
import {
  APP_CONFIG_LIMIT,
  AppConfig,
  ProductSlugParams,
  SlugParams,
  StorefrontCategory,
  StorefrontConfig,
  StorefrontProductPage,
  StorefrontProductQuery,
  StorefrontProductSummary,
} from './storefront.schemas.js';

export interface StorefrontDeps {
  stores: StoresService;
  payments: Pick<PaymentsService, 'storefrontPayments'>;
  products: ProductsService;
  categories: CategoriesService;
  merchantAuth: MerchantAuthOptions;
}

/** Public catalogue of one store: /api/storefront/{slug}/…, no authentication, cacheable. */
export const storefrontRoutes: FastifyPluginAsyncTypebox<StorefrontDeps> = async (app, deps) => {
  const { stores, products, categories } = deps;

  await app.register(async (open) => {
    installPublicCaching(open as unknown as FastifyInstance);
    const route = open.withTypeProvider<import('@fastify/type-provider-typebox').TypeBoxTypeProvider>();

    route.get(
      '/:slug/config',
      {
        schema: {
          tags: ['Storefront'],
          operationId: 'getStorefrontConfig',
          security: [],
          summary: 'Store name, logo, colours, currency and the payment methods checkout takes',
          params: SlugParams,
          response: { 200: DataEnvelope(StorefrontConfig) },
        },
      },
      async (request) => {
        const store = await stores.getActiveStoreBySlug(request.params.slug);
        return {
          data: {
            name: store.name,
            slug: store.slug,
            logo: store.logo,
            colors: storeColors(store.colors),
            currency: store.currency,
            payments: await deps.payments.storefrontPayments(store.id),
          },
        };
      },
    );

    route.get(
      '/:slug/products',
      {
        schema: {
          tags: ['Storefront'],
          operationId: 'listStorefrontProducts',
          security: [],
          summary: 'Active products',
          params: SlugParams,
          querystring: StorefrontProductQuery,
          response: { 200: ListEnvelope(StorefrontProductSummary) },
        },
      },
      async (request) => {
        const store = await stores.getActiveStoreBySlug(request.params.slug);
        const page = pageOf(request.query);
        const { data, total } = await products.storefrontList(store, page, {
          sort: request.query.sort,
          categorySlug: request.query.category,
          q: request.query.q,
        });
        return listEnvelope(data, page, total);
      },
    );

    route.get(
      '/:slug/products/:productSlug',
      {
        schema: {
          tags: ['Storefront'],
          operationId: 'getStorefrontProduct',
          security: [],
          summary: 'One active product with its variants and images',
          params: ProductSlugParams,
          response: { 200: DataEnvelope(StorefrontProductPage) },
        },
      },
      async (request) => {
        const store = await stores.getActiveStoreBySlug(request.params.slug);
        return { data: await products.storefrontProduct(store, request.params.productSlug) };
      },
    );

    route.get(
      '/:slug/categories',
      {
        schema: {
          tags: ['Storefront'],
          operationId: 'listStorefrontCategories',
          security: [],
          summary: 'Categories with their number of active products',
          params: SlugParams,
          querystring: Type.Object(pageQuery({ defaultLimit: 100 })),
          response: { 200: ListEnvelope(StorefrontCategory) },
        },
      },
      async (request) => {
        const store = await stores.getActiveStoreBySlug(request.params.slug);
        const page = pageOf(request.query, 100);
        const { rows, total } = await categories.list(store.id, page, { activeOnly: true });
        return listEnvelope(rows.map(categoryForStorefront), page, total);
      },
    );

    route.get(
      '/:slug/app-config',
      {
        schema: {
          tags: ['Storefront'],
          operationId: 'getAppConfig',
          security: [],
          summary: 'Mobile app configuration (JSON, `{}` when none)',
          params: SlugParams,
          response: { 200: DataEnvelope(AppConfig) },
        },
      },
      async (request) => ({ data: (await stores.getActiveStoreBySlug(request.params.slug)).app_config }),
    );
  });

  await app.register(async (guarded) => {
    installMerchantAuth(guarded as unknown as FastifyInstance, deps.merchantAuth);
    const route = guarded.withTypeProvider<import('@fastify/type-provider-typebox').TypeBoxTypeProvider>();
    route.put(
      '/:slug/app-config',
      {
        config: { scope: 'mobile:write' },
        schema: {
          tags: ['Storefront'],
          operationId: 'updateAppConfig',
          summary: 'Save the mobile app configuration',
          params: SlugParams,
          body: AppConfig,
          response: { 200: DataEnvelope(AppConfig) },
        },
      },
      async (request) => {
        const store = await stores.getActiveStoreBySlug(request.params.slug).catch(() => undefined);
        // A key of another store learns nothing about this one.
        if (!store || store.id !== request.ctx.storeId) throw notFound('store');
        // The input guard has bounded the depth: serialising it cannot exhaust the stack.
        const size = Buffer.byteLength(JSON.stringify(request.body));
        if (size > APP_CONFIG_LIMIT)
          throw new AppError(413, 'payload_too_large', 'The app config exceeds 64 KiB', [
            { field: 'body', message: `is ${size} bytes; at most ${APP_CONFIG_LIMIT}` },
          ]);
        await stores.saveAppConfig(store.id, request.body);
        return { data: request.body };
      },
    );
  });
};
