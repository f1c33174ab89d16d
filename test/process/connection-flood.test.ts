import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import {
  cleanupDataDir,
  killLeftovers,
  makeDataDir,
  ROOT,
  ServerProcess,
  sleep,
} from '../helpers/processes.js';
import { timedGet } from '../helpers/raw-connections.js';

/**
 * Issue 29, item 5, at its own figures: 10,200 stalled request bodies from 60 addresses against a
 * process capped at 10,000 connections (the default), while /healthz is probed from 127.0.0.100 every
 * 500 ms for 15 s. The server is a real `emporium serve` process and the flood one of its own
 * (test/helpers/stalled-flood.ts), so their 10,000 and 10,200 sockets count against two open-file
 * limits (`ulimit -n`, 20,000 where this was written) and the probes' timings against neither's
 * event loop. The issue's flood was repeated every 30 s: within the 15 s, one wave, held at the cap
 * throughout (the minimum body rate's grace is set past the probing, so only shedding at the cap lets
 * the probes in). test/api/connection-shedding runs a tenth of it with the default grace, every
 * connection re-opened 200 ms after it is closed.
 */

const CAP = 10_000;
const ADDRESSES = 60;
const PER_ADDRESS = 170; // 10,200 in all
/** The issue's flood was repeated every 30 s: within the 15 s of probes, one wave. */
const REOPEN_MS = 30_000;
/** Sockets the flood needs (in a process of its own), and some slack. */
const FILES_NEEDED = ADDRESSES * PER_ADDRESS + 500;

function openFileLimit(): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    return Number(line?.slice('Max open files'.length).trim().split(/\s+/)[0]);
  } catch {
    return 0;
  }
}

const skipReason = openFileLimit() < FILES_NEEDED ? `needs ulimit -n of at least ${FILES_NEEDED}` : undefined;

describe.skipIf(skipReason !== undefined)(
  `a flood of 10,200 stalled bodies from 60 addresses against the default cap of 10,000${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let database: TestDatabase;
    let dataDir: string;
    let server: ServerProcess;
    beforeAll(async () => {
      database = await createTestDatabase();
      dataDir = makeDataDir('flood');
      server = await ServerProcess.start({
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        MAX_CONNECTIONS: String(CAP),
        // The flood is held for the whole probing, so only shedding at the cap can let probes in.
        MIN_REQUEST_BODY_RATE_GRACE_MS: '25000',
      });
    });
    afterAll(async () => {
      await server?.stop().catch(() => undefined);
      await killLeftovers();
      await database?.drop();
      if (dataDir) await cleanupDataDir(dataDir);
    });

    it('/healthz from another address answers throughout', { timeout: 120_000 }, async () => {
      const flood = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'test/helpers/stalled-flood.ts',
          ...[server.port, ADDRESSES, PER_ADDRESS, REOPEN_MS, 16, CAP * 0.9].map(String),
        ],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let output = '';
      flood.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
      });
      const ended = new Promise((resolve) => flood.on('close', resolve));
      try {
        const rampDeadline = performance.now() + 60_000;
        while (!output.includes('ready') && performance.now() < rampDeadline) await sleep(100);
        expect(output).toMatch(/^ready \d+/);

        const probes: { status: number | string; ms: number; at: number }[] = [];
        const started = performance.now();
        while (performance.now() - started < 15_000) {
          const at = Math.round(performance.now() - started);
          probes.push({ ...(await timedGet(server.port, '127.0.0.100', 2000)), at });
          await sleep(500);
        }
        await ended;
        const figures = JSON.parse(output.split('\n')[1] as string) as {
          opened: number;
          closedWith408: number;
          peakOpen: number;
          heldFullMs: number;
        };
        const failed = probes.filter((p) => p.status !== 200);
        console.info(
          `flood of ${ADDRESSES * PER_ADDRESS} cap ${CAP}: ${probes.length} probes, ` +
            `${failed.length} failed, slowest ${Math.max(...probes.map((p) => p.ms)).toFixed(0)} ms; flood ${JSON.stringify(figures)}; ` +
            `probes [at, status, ms]: ${JSON.stringify(probes.map((p) => [p.at, p.status, Math.round(p.ms)]))}`,
        );
        expect(failed).toEqual([]);
        expect(probes.length).toBeGreaterThanOrEqual(20);
        // The flood was real: it held the cap (nearly) full while the probes were answered, each
        // probe closing stalled bodies (with a 408) to get in.
        expect(figures.heldFullMs).toBeGreaterThanOrEqual(14_000);
        expect(figures.closedWith408).toBeGreaterThanOrEqual(ADDRESSES * PER_ADDRESS - CAP);
        const warning = server
          .logLines()
          .find((l) => l.msg === 'connections closed by the connection limits');
        expect(warning).toMatchObject({ level: 'warn', maxConnections: CAP });
      } finally {
        flood.kill('SIGKILL');
      }
    });
  },
);
