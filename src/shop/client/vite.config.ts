import path from 'node:path';
import { defineConfig } from 'vite';

/**
 * The shop's client bundle: small scripts that enhance server-rendered pages (no framework: every
 * page works from its HTML, and a product page may load at most 60 KB of compressed script), plus
 * the stylesheet. `npm install` builds it into shop-assets/ (the root package's `prepare` script);
 * `npm run build:shop` rebuilds it. Each entry below is one island; pages name the ones they load.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/shop-assets/',
  logLevel: 'warn',
  build: {
    outDir: path.resolve(import.meta.dirname, '../../../shop-assets'),
    emptyOutDir: true,
    manifest: true,
    sourcemap: false,
    target: 'es2020',
    assetsDir: '',
    rollupOptions: {
      input: {
        shop: path.join(import.meta.dirname, 'shop.ts'),
        cart: path.join(import.meta.dirname, 'cart.ts'),
        checkout: path.join(import.meta.dirname, 'checkout.ts'),
        shipping: path.join(import.meta.dirname, 'shipping.ts'),
        product: path.join(import.meta.dirname, 'product.ts'),
      },
    },
  },
});
