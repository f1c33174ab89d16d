import { type ChildProcess, spawn } from 'node:child_process';
import { type Env, type LogLine, processEnv, ROOT, type ServerExit, sleep } from './processes.js';

const WORKER_STARTED = 'background worker started';

/**
 * A running `emporium worker`, launched as processes.ts launches `emporium` (node --import tsx), for
 * process tests that kill, stop and restart workers. `WorkerProcess.running` holds the live ones, so
 * a suite's afterAll can kill what a failed test left.
 */
export class WorkerProcess {
  static readonly running = new Set<WorkerProcess>();
  stdout = '';
  stderr = '';
  readonly exited: Promise<ServerExit>;
  private exit: ServerExit | undefined;

  private constructor(readonly child: ChildProcess) {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) => {
      child.on('close', (code, signal) => {
        this.exit = { code, signal };
        WorkerProcess.running.delete(this);
        resolve(this.exit);
      });
    });
  }

  get pid(): number {
    return this.child.pid as number;
  }

  /** Spawns `emporium worker` with `env` (LOG_LEVEL info unless set) and waits until it started. */
  static async start(env: Env): Promise<WorkerProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'worker'], {
      cwd: ROOT,
      env: processEnv({ LOG_LEVEL: 'info', ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const worker = new WorkerProcess(child);
    WorkerProcess.running.add(worker);
    await worker.waitForLog((line) => line.msg.startsWith(WORKER_STARTED));
    return worker;
  }

  logLines(): LogLine[] {
    return this.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  }

  async waitForLog(match: (line: LogLine) => boolean, timeoutMs = 60_000): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = this.logLines().find(match);
      if (found) return found;
      if (this.exit)
        throw new Error(`emporium worker exited (${this.exit.code ?? this.exit.signal})\n${this.output()}`);
      await sleep(25);
    }
    throw new Error(`timed out waiting for a worker log line\n${this.output()}`);
  }

  output(): string {
    return `${this.stderr}${this.stdout}`.slice(-4000);
  }

  /** kill -9. */
  kill(): Promise<ServerExit> {
    this.child.kill('SIGKILL');
    return this.exited;
  }

  /** SIGTERM, then the exit (SIGKILL and an error after `timeoutMs`). */
  async stop(timeoutMs = 40_000): Promise<ServerExit> {
    this.child.kill('SIGTERM');
    const result = await Promise.race([this.exited, sleep(timeoutMs).then(() => undefined)]);
    if (!result) {
      await this.kill();
      throw new Error(`emporium worker did not exit within ${timeoutMs} ms of SIGTERM\n${this.output()}`);
    }
    return result;
  }

  /** Errors and warnings it logged. */
  problems(): string[] {
    return this.logLines()
      .filter((line) => line.level === 'error' || line.level === 'warn' || Number(line.level) >= 40)
      .map((line) => line.msg);
  }
}
