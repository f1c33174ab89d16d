import type { FastifyInstance } from 'fastify';
import { notFound } from '../../platform/http/errors.js';
import { attempt, fieldOf, formOf, isEmail, shopperMessage } from '../account-forms.js';
import { NotifyMeSentPage } from '../pages/notify-me-sent.js';
import { ProductPage } from '../pages/product.js';
import { sendPage } from '../render.js';
import { shopCustomerOf } from '../session.js';
import { shopOf } from '../shop-context.js';
import type { ShopDeps } from '../shop-deps.js';

/** The storefront's bound on a product slug: anything longer names no product. */
const MAX_PRODUCT_SLUG = 200;

/**
 * POST /products/:slug/notify-me: the sold-out page's "Email me when it's back" form, through the
 * same service (and so the same limits and answers) as the storefront API's notify-me. Same-origin
 * only, as every shop form (shop.routes.tsx). A refusal is shown on the product page beside the
 * field; a sign-up answers with the confirmation, alike for a new or a repeated address.
 */
export async function notifyMeRoutes(app: FastifyInstance, deps: ShopDeps) {
  app.post('/products/:productSlug/notify-me', async (request, reply) => {
    const shop = shopOf(request);
    const { productSlug } = request.params as { productSlug: string };
    if (productSlug.length > MAX_PRODUCT_SLUG) throw notFound('product');
    // Drafts, archived and unknown products: not_found, the shop's 404 page.
    const data = await deps.products.storefrontProduct(shop.store, productSlug);
    const form = formOf(request);
    const email = fieldOf(form, 'email');
    const variantId = fieldOf(form, 'notifyVariantId');
    const refused = (status: number, error: string) =>
      sendPage(reply, <ProductPage shop={shop} data={data} notify={{ email, variantId, error }} />, {
        status,
        cache: 'private',
      });
    if (!isEmail(email)) return refused(400, 'Enter a valid e-mail address, like name@example.com.');
    const customer = await shopCustomerOf(request, reply, shop.store.id, deps);
    const done = await attempt(() =>
      deps.backInStock.subscribe(
        shop.store,
        productSlug,
        { email, ...(variantId ? { variantId } : {}) },
        { ip: request.ip, customerId: customer?.customerId },
      ),
    );
    if (!done.ok) {
      if (done.error.statusCode === 404) throw done.error;
      if (done.error.headers) reply.headers(done.error.headers);
      const message =
        done.error.statusCode === 400 && variantId
          ? 'Choose one of the sold-out options.'
          : shopperMessage(done.error);
      return refused(done.error.statusCode, message);
    }
    const variant = data.variants.find((v) => v.id === variantId)?.title;
    return sendPage(reply, <NotifyMeSentPage shop={shop} product={data.product} variant={variant} />, {
      cache: 'private',
    });
  });
}
