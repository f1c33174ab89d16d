import type { TestProject } from 'vitest/node';
import { createTemplate, dropDatabase } from './template.js';

/** Runs the integration suites on TEST_DATABASE_URL's server: one database per test file. */
export default async function setup(project: TestProject) {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const templateDatabase = `emporium_template_${process.pid}`;
  await createTemplate(adminUrl, templateDatabase);
  project.provide('adminUrl', adminUrl);
  project.provide('templateDatabase', templateDatabase);
  project.provide('databaseMode', 'postgres');
  project.provide('redisUrl', process.env.TEST_REDIS_URL ?? '');
  return async () => {
    await dropDatabase(adminUrl, templateDatabase);
  };
}
