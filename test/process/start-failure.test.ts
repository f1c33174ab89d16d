import net from 'node:net';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  cleanupDataDir,
  clusterPids,
  freePort,
  isAlive,
  killLeftovers,
  makeDataDir,
  postmaster,
  runCli,
} from '../helpers/processes.js';

/**
 * A start that fails after the embedded cluster was opened (here: the HTTP port is taken) must not
 * leave that cluster behind, nor a process hanging on it: one line on stderr, exit 1, nothing of the
 * DATA_DIR still running.
 */
const embedded = inject('databaseMode') === 'embedded';

afterAll(() => killLeftovers());

describe.runIf(embedded)('a start that cannot listen', () => {
  it('exits 1 with one line naming the port, and stops the cluster it started', async () => {
    const dataDir = makeDataDir('port-taken');
    const port = await freePort();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '0.0.0.0', resolve));
    try {
      const startedAt = performance.now();
      const result = await runCli(
        ['serve', '--port', String(port)],
        { DATA_DIR: dataDir },
        { timeoutMs: 45_000 },
      );
      const ms = Math.round(performance.now() - startedAt);
      console.log(`serve on a taken port: exited ${result.code} after ${ms} ms: ${result.stderr.trim()}`);
      expect(result.code).toBe(1);
      // The cluster was started by this process (fresh DATA_DIR) and stopped cleanly on the way out.
      expect(result.stdout).toContain('embedded PostgreSQL started');
      expect(clusterPids(dataDir)).toEqual([]);
      expect(postmaster(dataDir)).toBeUndefined();
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^emporium: .*port ${port}.*already in use`));
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
      const left = postmaster(dataDir);
      if (left && isAlive(left.pid)) console.log(`cluster ${left.pid} was left running; cleaning up`);
      await cleanupDataDir(dataDir);
    }
  });
});
