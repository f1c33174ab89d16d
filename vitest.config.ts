import { configDefaults, defineConfig } from 'vitest/config';

/**
 * `npm test` runs the unit tests once and the integration suites on an embedded cluster it starts
 * itself; with TEST_DATABASE_URL set, the integration suites run a second time on that PostgreSQL.
 */
const integration = (name: string, setup: string) => ({
  extends: true as const,
  test: {
    name,
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'test/browser/**', 'test/unit/**'],
    globalSetup: [setup],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});

export default defineConfig({
  test: {
    projects: [
      // test/unit/: pure tests of code outside src/ (the bench report), with no database; admin/src/: the
      // dashboard's pure modules (money, previews, forms), tested beside them.
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/unit/**/*.test.ts', 'admin/src/**/*.test.ts'],
        },
      },
      integration('embedded', 'test/setup/embedded.ts'),
      ...(process.env.TEST_DATABASE_URL ? [integration('postgres', 'test/setup/external.ts')] : []),
      // The dashboard in Debian's Chromium; without /usr/bin/chromium the setup says so and the suite skips.
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: ['test/browser/setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
