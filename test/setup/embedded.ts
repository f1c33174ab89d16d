import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openEmbeddedCluster } from '../../src/platform/db/embedded.js';
import { createTemplate } from './template.js';

/** Starts a private embedded cluster for this test run, with durability relaxed for speed. */
export default async function setup(project: TestProject) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-test-'));
  const cluster = await openEmbeddedCluster({
    dataDir,
    password: 'test',
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '300' },
  });
  const templateDatabase = 'emporium_template';
  await createTemplate(cluster.adminUrl, templateDatabase);
  project.provide('adminUrl', cluster.adminUrl);
  project.provide('templateDatabase', templateDatabase);
  project.provide('databaseMode', 'embedded');
  project.provide('redisUrl', process.env.TEST_REDIS_URL ?? '');
  return async () => {
    await cluster.release();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
}
