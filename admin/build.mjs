/**
 * `npm install` / `npm ci` run this (the root package's `prepare` script): it builds the dashboard
 * into admin/dist with Vite. A failed build does not fail the installation, because the API does not
 * need the dashboard: the server then answers /admin with a page saying how to build it, and this
 * prints why. `npm run build:admin` builds and fails loudly.
 */
import { fileURLToPath } from 'node:url';

const configFile = fileURLToPath(new URL('./vite.config.ts', import.meta.url));
try {
  const { build } = await import('vite');
  await build({ configFile, logLevel: 'warn' });
  console.log('Emporium dashboard built into admin/dist (served at /admin).');
} catch (error) {
  console.warn(
    [
      '',
      `  The Emporium dashboard (admin/) could not be built: ${error instanceof Error ? error.message : error}`,
      '  The API works without it; /admin will say so. Retry with: npm run build:admin',
      '',
    ].join('\n'),
  );
}
