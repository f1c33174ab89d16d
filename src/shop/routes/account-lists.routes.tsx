import type { FastifyInstance } from 'fastify';
import { notFound } from '../../platform/http/errors.js';
import {
  attempt,
  customerOrSignIn,
  doneMessage,
  fieldOf,
  formOf,
  safeReturnPath,
  signInHref,
} from '../account-forms.js';
import { AccountAddressesPage, type AddressForm } from '../pages/account-addresses.js';
import { AccountWishlistPage } from '../pages/account-wishlist.js';
import { sendPage } from '../render.js';
import { shopCustomerOf } from '../session.js';
import { type ShopContext, shopHref, shopOf } from '../shop-context.js';
import type { ShopDeps } from '../shop-deps.js';

const ADDRESS_LIMITS: [keyof AddressForm, string, number, boolean][] = [
  ['line1', 'Address', 255, true],
  ['line2', 'Apartment, suite, etc.', 255, false],
  ['city', 'City', 100, true],
  ['region', 'State or region', 100, false],
  ['postalCode', 'Postal code', 20, true],
  ['phone', 'Phone', 40, false],
];

/** What is wrong with an address form (the same rules as the API's), or undefined. */
function addressProblem(form: AddressForm): string | undefined {
  for (const [name, label, max, required] of ADDRESS_LIMITS) {
    const value = form[name];
    if (required && !value) return `${label} is required.`;
    if (value && value.length > max) return `${label} can be at most ${max} characters long.`;
  }
  if (!/^[A-Za-z]{2}$/.test(form.country ?? '')) return 'Country must be a 2-letter code, like US, GB or DE.';
  return undefined;
}

/** The shopper's saved addresses and wishlist: lists with forms that post and redirect back. */
export async function accountListRoutes(app: FastifyInstance, deps: ShopDeps) {
  async function addressesPage(shop: ShopContext, customerId: string) {
    const [profile, addresses] = await Promise.all([
      deps.customers.profile(shop.store.id, customerId),
      deps.customers.addresses(shop.store.id, customerId),
    ]);
    return { email: profile.email, addresses };
  }

  app.get('/account/addresses', async (request, reply) => {
    const shop = shopOf(request);
    const customer = await customerOrSignIn(request, reply, shop, deps, '/account/addresses');
    if (!customer) return reply;
    const data = { ...(await addressesPage(shop, customer.customerId)), done: doneMessage(request.query) };
    return sendPage(reply, <AccountAddressesPage shop={shop} data={data} />, { cache: 'private' });
  });

  app.post('/account/addresses', async (request, reply) => {
    const shop = shopOf(request);
    const customer = await customerOrSignIn(request, reply, shop, deps, '/account/addresses');
    if (!customer) return reply;
    const body = formOf(request);
    const form: AddressForm = {};
    for (const name of [
      'line1',
      'line2',
      'city',
      'region',
      'postalCode',
      'country',
      'phone',
      'isDefault',
    ] as const)
      form[name] = fieldOf(body, name);
    const problem = addressProblem(form);
    if (problem) {
      const data = { ...(await addressesPage(shop, customer.customerId)), error: problem, form };
      return sendPage(reply, <AccountAddressesPage shop={shop} data={data} />, {
        status: 400,
        cache: 'private',
      });
    }
    await deps.customers.addAddress(shop.store.id, customer.customerId, {
      line1: form.line1 as string,
      line2: form.line2 ?? null,
      city: form.city as string,
      region: form.region ?? null,
      postal_code: form.postalCode as string,
      country: (form.country as string).toUpperCase(),
      phone: form.phone ?? null,
      is_default: form.isDefault !== undefined,
    });
    return reply.redirect(shopHref(shop, '/account/addresses?done=address-added'), 303);
  });

  app.post('/account/addresses/:id/delete', async (request, reply) => {
    const shop = shopOf(request);
    const customer = await customerOrSignIn(request, reply, shop, deps, '/account/addresses');
    if (!customer) return reply;
    // Someone else's address (or none) is not found: the service deletes within this customer only.
    await deps.customers.removeAddress(
      shop.store.id,
      customer.customerId,
      (request.params as { id: string }).id,
    );
    return reply.redirect(shopHref(shop, '/account/addresses?done=address-deleted'), 303);
  });

  app.get('/account/wishlist', async (request, reply) => {
    const shop = shopOf(request);
    const customer = await customerOrSignIn(request, reply, shop, deps, '/account/wishlist');
    if (!customer) return reply;
    const [profile, products] = await Promise.all([
      deps.customers.profile(shop.store.id, customer.customerId),
      deps.wishlist.list(shop.store.id, customer.customerId),
    ]);
    const data = { email: profile.email, products, done: doneMessage(request.query) };
    return sendPage(reply, <AccountWishlistPage shop={shop} data={data} />, { cache: 'private' });
  });

  // For the product page's script (client/wishlist.ts): whether this shopper saved the product.
  // Answers signed-out shoppers too (200, not 401), so the script costs no failed request.
  app.get('/account/wishlist/state', async (request, reply) => {
    const shop = shopOf(request);
    const productId = String((request.query as { productId?: unknown }).productId ?? '').slice(0, 100);
    const customer = await shopCustomerOf(request, reply, shop.store.id, deps);
    const wishlisted = customer
      ? (await deps.wishlist.check(shop.store.id, customer.customerId, productId)).wishlisted
      : false;
    return reply
      .header('cache-control', 'private, no-store')
      .send({ signedIn: Boolean(customer), wishlisted });
  });

  // "Save to wishlist" on a product page. Adding is idempotent (a second press keeps it saved);
  // signed out, the sign-in brings the shopper back to the product to press it again.
  app.post('/account/wishlist', async (request, reply) => {
    const shop = shopOf(request);
    const form = formOf(request);
    const productId = fieldOf(form, 'productId') ?? '';
    const customer = await shopCustomerOf(request, reply, shop.store.id, deps);
    if (!customer) {
      const [product] = await deps.products.storefrontSummaries(shop.store, [productId]);
      const back =
        safeReturnPath(form.return) ??
        (product ? `/products/${encodeURIComponent(product.slug)}` : '/account/wishlist');
      return reply.redirect(signInHref(shop, back), 303);
    }
    const added = await attempt(() => deps.wishlist.add(shop.store.id, customer.customerId, productId));
    if (!added.ok) throw notFound('product');
    return reply.redirect(shopHref(shop, '/account/wishlist?done=wishlist-added'), 303);
  });

  app.post('/account/wishlist/:productId/delete', async (request, reply) => {
    const shop = shopOf(request);
    const customer = await customerOrSignIn(request, reply, shop, deps, '/account/wishlist');
    if (!customer) return reply;
    const { productId } = request.params as { productId: string };
    await deps.wishlist.remove(shop.store.id, customer.customerId, productId);
    return reply.redirect(shopHref(shop, '/account/wishlist?done=wishlist-removed'), 303);
  });
}
