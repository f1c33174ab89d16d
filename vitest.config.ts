import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs the unit tests once and the integration suites on an embedded cluster it starts
 * itself; with TEST_DATABASE_URL set, the integration suites run a second time on that PostgreSQL.
 */
const integration = (name: string, setup: string) => ({
  extends: true as const,
  test: {
    name,
    include: ['test/**/*.test.ts'],
    globalSetup: [setup],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'] } },
      integration('embedded', 'test/setup/embedded.ts'),
      ...(process.env.TEST_DATABASE_URL ? [integration('postgres', 'test/setup/external.ts')] : []),
    ],
  },
});
