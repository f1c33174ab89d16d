import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor200 } from './http.js';
import { forceStopTree } from './proc.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `npm start`'s script: the settings a benchmark that claims to run `npm start` must use too. */
const npmStart = (
  JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }
).scripts.start;
/** The glibc malloc variables `npm start` sets (its `MALLOC_…=value` words; docs/decisions.md). */
export const GLIBC_MALLOC: Record<string, string> = Object.fromEntries(
  [...npmStart.matchAll(/\b(MALLOC_\w+)=(\S+)/g)].map(([, name, value]) => [name as string, value as string]),
);
/** GLIBC_MALLOC as the notes say it (`MALLOC_ARENA_MAX=2 …`). */
export const GLIBC_MALLOC_TEXT = Object.entries(GLIBC_MALLOC)
  .map(([name, value]) => `${name}=${value}`)
  .join(' ');
/** Node's flags in `npm start` (its `--…` words; also `npm run emporium` and the image). */
export const NPM_START_NODE_FLAGS: string[] = [...npmStart.matchAll(/\s(--[\w-]+(?:=\S+)?)/g)].map(
  ([, flag]) => flag as string,
);

/** Variables of the surrounding shell that would change what a spawned server does. */
const INHERITED_SETTINGS = [
  'PORT',
  'HOST',
  'PUBLIC_URL',
  'DATA_DIR',
  'DATABASE_URL',
  'REDIS_URL',
  'SMTP_URL',
  'APP_SECRET',
  'RATE_LIMIT_PER_MINUTE',
  'LOG_LEVEL',
  'NODE_ENV',
  'NODE_OPTIONS',
  'MEDIA_DRIVER',
];

/** One API process started by a benchmark (`emporium serve --no-worker`, or `npm start`'s dist/main.js). */
export interface ApiProcess {
  name: string;
  url: string;
  pid: number;
  /** Everything the process printed (its DATA_DIR/server.log), for a failure message. */
  output(): string;
  /** SIGTERM and wait for its exit (its tree killed after 30 s); returns the exit code or signal. */
  stop(): Promise<number | string | null>;
}

export interface ApiProcessOptions {
  name: string;
  databaseUrl: string;
  /** Shared by every API process of a deployment (it seals webhook secrets). */
  appSecret: string;
  /** A directory of its own: DATA_DIR (local media) and the log file. */
  dataDir: string;
  /** Extra environment, e.g. RATE_LIMIT_PER_MINUTE or LOG_LEVEL. */
  env?: Record<string, string>;
  /**
   * `sources` (default): the TypeScript through tsx, for throughput; `compiled`: dist/cli.js as
   * `npm start` runs it, for memory (tsx itself holds tens of MB); `npm-start`: dist/main.js exactly as
   * `npm start` runs it, the background worker included (webhooks are delivered by this process).
   */
  launch?: 'sources' | 'compiled' | 'npm-start';
}

/**
 * Spawns `emporium serve --no-worker` (one Node process: the sources through tsx, or the compiled
 * dist/) on a free port and resolves once its /readyz answers 200.
 */
export async function startApiProcess(options: ApiProcessOptions): Promise<ApiProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INHERITED_SETTINGS) delete env[name];
  Object.assign(env, options.env, {
    DATABASE_URL: options.databaseUrl,
    APP_SECRET: options.appSecret,
    DATA_DIR: options.dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: url,
  });
  const logFile = path.join(options.dataDir, 'server.log');
  const out = fs.openSync(logFile, 'a');
  const launch = options.launch ?? 'sources';
  // As `npm start` and the image run it: glibc's malloc tuned as docs/decisions.md says.
  if (launch !== 'sources') Object.assign(env, { ...GLIBC_MALLOC, ...env });
  const args =
    launch === 'npm-start'
      ? [...NPM_START_NODE_FLAGS, 'dist/main.js']
      : [
          ...(launch === 'compiled'
            ? [...NPM_START_NODE_FLAGS, 'dist/cli.js']
            : ['--import', 'tsx', 'src/cli.ts']),
          'serve',
          '--no-worker',
        ];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    env,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  let exit: string | undefined;
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = `exited with ${signal ?? code}`;
      resolve(code ?? signal);
    }),
  );
  const output = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');
  const stop = async () => {
    if (exit === undefined) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => void forceStopTree(child.pid as number), 30_000);
      await exited;
      clearTimeout(timer);
    }
    return exited;
  };
  try {
    await waitFor200(`${url}/readyz`, { timeoutMs: 120_000, gaveUp: () => exit });
  } catch (error) {
    await stop();
    throw new Error(
      `${options.name}: ${(error as Error).message}\n--- ${logFile} ---\n${output().slice(-2000)}`,
    );
  }
  return { name: options.name, url, pid: child.pid as number, output, stop };
}
