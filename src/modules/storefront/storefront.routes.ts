import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { ChangeCounter } from '../../platform/change-counter.js';
import { installPublicCaching } from '../../platform/http/cacheable.js';
import {
  DataEnvelope,
  ListEnvelope,
  listEnvelope,
  pageOf,
  pageQuery,
} from '../../platform/http/envelopes.js';
import { errorResponses } from '../../platform/http/error-responses.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { contentEtag, ifMatchOf } from '../../platform/http/etag.js';
import { installMerchantAuth, type MerchantAuthOptions } from '../../platform/http/merchant-auth.js';
import { type CachedBody, createResponseCache } from '../../platform/http/response-cache.js';
import { webUrlOf } from '../../platform/web-url.js';
import type { CategoriesService, ProductsService } from '../catalog/index.js';
import { categoryForStorefront } from '../catalog/index.js';
import type { PaymentsService } from '../payments/index.js';
import { type StoresService, storeColors } from '../stores/index.js';
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
  /** The catalogue's version per store: the cached answers of the product list and page key on it. */
  catalogChanges: ChangeCounter;
  /** How long a product list or page answer is reused (response-cache.ts; 0 disables). */
  cacheTtlMs?: number;
}

/** List answers weigh 1 to 50 KB, product pages a few KB: this bounds the cache to a few MB. */
const CACHE_ENTRIES = 2_000;

/** The route's own serialiser of a 200 answer (from its response schema): what Fastify would send. */
function serializerOf(reply: FastifyReply): (payload: unknown) => string {
  const serialize = reply.getSerializationFunction('200');
  if (!serialize) throw new Error(`${reply.request.routeOptions.url} has no response schema for 200`);
  return (payload) => serialize(payload as Record<string, unknown>);
}

/** Sends a cached JSON answer as it was serialised, with the ETag stored with it. */
function sendJson(reply: FastifyReply, answer: CachedBody) {
  return reply.header('etag', answer.etag).type('application/json; charset=utf-8').send(answer.body);
}

/** Public catalogue of one store: /api/storefront/{slug}/…, no authentication, cacheable. */
export const storefrontRoutes: FastifyPluginAsyncTypebox<StorefrontDeps> = async (app, deps) => {
  const { stores, products, categories } = deps;
  /**
   * The product list and product page, the storefront's busiest reads: each answer is kept as the
   * serialised body and its ETag, so a hit costs neither the database nor the serialiser.
   */
  const answers = createResponseCache({
    changes: deps.catalogChanges,
    ttlMs: deps.cacheTtlMs,
    maxEntries: CACHE_ENTRIES,
  });

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
            // A logo stored before logos had to be http(s) is never handed to an app to draw.
            logo: webUrlOf(store.logo) ?? null,
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
      async (request, reply) => {
        const store = await stores.getActiveStoreBySlug(request.params.slug);
        const page = pageOf(request.query);
        const { sort, category, q } = request.query;
        const key = JSON.stringify(['list', store.currency, page.page, page.limit, sort, category, q]);
        const serialize = serializerOf(reply);
        const answer = await answers.get(store.id, key, 'json', async () => {
          const { data, total } = await products.storefrontList(store, page, {
            sort,
            categorySlug: category,
            q,
          });
          return serialize(listEnvelope(data, page, total));
        });
        return sendJson(reply, answer);
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
      async (request, reply) => {
        const store = await stores.getActiveStoreBySlug(request.params.slug);
        const { productSlug } = request.params;
        const serialize = serializerOf(reply);
        const key = JSON.stringify(['product', store.currency, productSlug]);
        const answer = await answers.get(store.id, key, 'json', async () =>
          serialize({ data: await products.storefrontProduct(store, productSlug) }),
        );
        return sendJson(reply, answer);
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
          'x-etag': true,
          params: SlugParams,
          response: { 200: DataEnvelope(AppConfig) },
        },
      },
      async (request, reply) => {
        const config = (await stores.getActiveStoreBySlug(request.params.slug)).app_config;
        reply.header('etag', contentEtag(config));
        return { data: config };
      },
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
          response: { 200: DataEnvelope(AppConfig), ...errorResponses(412) },
        },
      },
      async (request, reply) => {
        const store = await stores.getActiveStoreBySlug(request.params.slug).catch(() => undefined);
        // A key of another store learns nothing about this one.
        if (!store || store.id !== request.ctx.storeId) throw notFound('store');
        // The input guard has bounded the depth: serialising it cannot exhaust the stack.
        const size = Buffer.byteLength(JSON.stringify(request.body));
        if (size > APP_CONFIG_LIMIT)
          throw new AppError(413, 'payload_too_large', 'The app config exceeds 64 KiB', [
            { field: 'body', message: `is ${size} bytes; at most ${APP_CONFIG_LIMIT}` },
          ]);
        const saved = await stores.saveAppConfig(store.id, request.body, ifMatchOf(request));
        reply.header('etag', contentEtag(saved));
        return { data: request.body };
      },
    );
  });
};
