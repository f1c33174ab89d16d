import { describe, expect, it } from 'vitest';
import { routedUrl } from './custom-domains.js';

const domains = new Map([['shop.example.com', 'corner']]);
const lookup = (host: string) => domains.get(host);

describe('custom-domain routing', () => {
  it.each([
    ['/', '/shop/corner/'],
    ['/products?q=mug', '/shop/corner/products?q=mug'],
    ['/products/blue-mug', '/shop/corner/products/blue-mug'],
    ['/robots.txt', '/shop/corner/robots.txt'],
    ['/sitemap.xml', '/shop/corner/sitemap.xml'],
    ['/cart', '/shop/corner/cart'],
    // A path that only starts like a kept one is the shop's.
    ['/apiary', '/shop/corner/apiary'],
    ['/shop/other/', '/shop/corner/shop/other/'],
  ])('routes %s on the custom domain to %s', (url, routed) => {
    expect(routedUrl(url, 'shop.example.com', lookup)).toBe(routed);
  });

  it.each([
    '/api/storefront/corner/products',
    '/api/customer/me',
    '/media/a.webp',
    '/shop-assets/shop-1.js',
    '/admin',
    '/admin/orders',
    '/docs',
    '/openapi.json',
    '/healthz',
    '/readyz?x=1',
    '/metrics',
  ])('keeps %s on every host', (url) => {
    expect(routedUrl(url, 'shop.example.com', lookup)).toBe(url);
  });

  it('leaves other hosts alone', () => {
    expect(routedUrl('/', 'localhost:3000', lookup)).toBe('/');
    expect(routedUrl('/products', undefined, lookup)).toBe('/products');
    expect(routedUrl('/', '127.0.0.1:3000', () => 'corner')).toBe('/');
  });

  it('matches the host whatever its case, port or trailing dot', () => {
    for (const host of ['SHOP.example.com', 'shop.example.com:8443', 'shop.example.com.'])
      expect(routedUrl('/cart', host, lookup)).toBe('/shop/corner/cart');
  });
});
