import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { forceStopTree } from './proc.js';

/**
 * A real `emporium worker` process (node --import tsx src/cli.ts worker, as `npm run emporium --
 * worker` runs it) for the scenarios that measure background work (webhooks, mail): started on a
 * database, its log in a file, timed from its "background worker started" line.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface WorkerRun {
  child: ChildProcess;
  /** Epoch ms of its "background worker started" log line. */
  startedAt: number;
  /** CPU time (user + system) the process has used so far, in ms. */
  cpuMs(): number;
  /** SIGTERM (a graceful stop), SIGKILL after 40 s; resolves with the exit code or signal. */
  stop(): Promise<number | string | null>;
}

/** User + system CPU time of a process so far (ms), from /proc (0 once it is gone). */
export function cpuMsOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
  } catch {
    return 0;
  }
}

/**
 * Spawns the worker with this process's environment minus `unset`, plus `env` (DATABASE_URL, LOG_LEVEL
 * info and DATA_DIR the log file's folder unless given), and waits for its start line (60 s at most).
 */
export async function startWorkerProcess(input: {
  databaseUrl: string;
  logFile: string;
  env?: Record<string, string>;
  unset?: readonly string[];
}): Promise<WorkerRun> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: input.databaseUrl,
    LOG_LEVEL: 'info',
    DATA_DIR: path.dirname(input.logFile),
    ...input.env,
  };
  for (const name of ['REDIS_URL', 'NODE_OPTIONS', ...(input.unset ?? [])]) {
    if (!input.env || !(name in input.env)) delete env[name];
  }
  // BENCH_WORKER_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`): node options of the worker
  // alone, for profiling it (NODE_OPTIONS is not passed on: it would reach the bench's other children).
  const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/cli.ts', 'worker'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = fs.createWriteStream(input.logFile, { flags: 'a' });
  let stdout = '';
  let startedAt: number | undefined;
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    log.write(chunk);
    if (startedAt !== undefined) return;
    stdout += chunk;
    for (const line of stdout.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const entry = JSON.parse(line) as { msg?: string; time?: string };
        if (entry.msg?.startsWith('background worker started')) startedAt = Date.parse(entry.time ?? '');
      } catch {}
    }
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => log.write(chunk));
  let exit: string | undefined;
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = `exited with ${signal ?? code}`;
      log.end();
      resolve(code ?? signal);
    }),
  );
  const deadline = Date.now() + 60_000;
  while (startedAt === undefined) {
    if (exit || Date.now() > deadline) {
      if (child.pid !== undefined) await forceStopTree(child.pid);
      throw new Error(`emporium worker never started (${exit ?? 'timeout'}); see ${input.logFile}`);
    }
    await sleep(10);
  }
  return {
    child,
    startedAt,
    cpuMs: () => cpuMsOf(child.pid as number),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode ?? child.signalCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => void forceStopTree(child.pid as number), 40_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
