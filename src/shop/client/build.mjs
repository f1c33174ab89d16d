/**
 * `npm install` / `npm ci` run this (the root package's `prepare` script): it builds the shop's client
 * bundle into shop-assets/ with Vite. A failed build does not fail the installation: the shop's pages
 * still render (browsing and search need no script), and this prints why. `npm run build:shop`
 * builds and fails loudly.
 */
import { fileURLToPath } from 'node:url';

const configFile = fileURLToPath(new URL('./vite.config.ts', import.meta.url));
try {
  const { build } = await import('vite');
  await build({ configFile, logLevel: 'warn' });
  console.log('Emporium shop scripts built into shop-assets/ (served at /shop-assets).');
} catch (error) {
  console.warn(
    `\n  The shop's scripts (src/shop/client) could not be built: ${error instanceof Error ? error.message : error}\n  Pages render without them. Retry with: npm run build:shop\n`,
  );
}
