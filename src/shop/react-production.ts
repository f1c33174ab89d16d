import { createRequire } from 'node:module';

/**
 * Loads React's production build for the shop's server rendering when NODE_ENV is unset (`npm
 * start`, `npm run dev`, the benchmarks): React picks its build from NODE_ENV when first required,
 * and its development build renders a page about three times slower, for checks that serve no one
 * here (nothing is hydrated). NODE_ENV is set only while React's entry points load, then removed
 * again, so the app's own configuration (production mode) still reads it unset. An explicit
 * NODE_ENV (development, test, production) is obeyed as it is. Imported first by the shop's index.
 */
if (process.env.NODE_ENV === undefined) {
  const require = createRequire(import.meta.url);
  process.env.NODE_ENV = 'production';
  try {
    require('react');
    require('react/jsx-runtime');
    require('react-dom/server');
  } finally {
    delete process.env.NODE_ENV;
  }
}
