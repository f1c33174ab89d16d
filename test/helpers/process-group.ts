import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { type Env, processEnv, ROOT, type ServerExit, sleep } from './processes.js';

/**
 * `emporium` processes that log at `warn` or less, so readiness cannot come from the "ready" log line
 * `ServerProcess` waits for: the caller gives a probe instead (an HTTP check, a database query).
 * Launched as processes.ts launches them (`node --import tsx src/cli.ts …`: one Node process, whose
 * pid is the child's). Every process is kept in its group until it exits, so `killAll` ends them
 * all, also after a failed test.
 */
export class ProcessGroup {
  private readonly members = new Set<EmporiumProcess>();

  /** Spawns `emporium <args>` and resolves once `ready()` is true (it rejects if the process exits). */
  async start(
    name: string,
    args: string[],
    env: Env,
    ready: (process: EmporiumProcess) => Promise<boolean>,
    timeoutMs = 60_000,
  ): Promise<EmporiumProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
      cwd: ROOT,
      env: processEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const member = new EmporiumProcess(name, child);
    this.members.add(member);
    void member.exited.then(() => this.members.delete(member));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (member.exit)
        throw new Error(`${name} exited (${member.exit.code ?? member.exit.signal})\n${member.output()}`);
      if (await ready(member).catch(() => false)) return member;
      if (Date.now() > deadline) {
        await member.kill();
        throw new Error(`${name} was not ready within ${timeoutMs} ms\n${member.output()}`);
      }
      await sleep(50);
    }
  }

  /** SIGKILLs every member still running and waits for them to end. */
  async killAll(): Promise<void> {
    await Promise.all([...this.members].map((member) => member.kill()));
  }
}

export interface LoggedLine {
  level: string;
  msg: string;
  /** The error code of a failed request (`unavailable`, …). */
  code?: string;
  [field: string]: unknown;
}

export class EmporiumProcess {
  stdout = '';
  stderr = '';
  exit: ServerExit | undefined;
  readonly exited: Promise<ServerExit>;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) => {
      child.on('close', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  get pid(): number {
    return this.child.pid as number;
  }

  output(): string {
    return `${this.stderr}${this.stdout}`.slice(-4000);
  }

  /** Structured log lines at `level` or above (`warn`, `error`, `fatal`). */
  logged(levels: string[] = ['warn', 'error', 'fatal']): LoggedLine[] {
    return this.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LoggedLine)
      .filter((line) => levels.includes(line.level));
  }

  /** SIGTERM and the exit; SIGKILL and an error if it takes longer than `timeoutMs`. */
  async stop(timeoutMs = 40_000): Promise<ServerExit> {
    if (this.exit) return this.exit;
    this.child.kill('SIGTERM');
    const result = await Promise.race([this.exited, sleep(timeoutMs).then(() => undefined)]);
    if (!result) {
      await this.kill();
      throw new Error(`${this.name} did not exit within ${timeoutMs} ms of SIGTERM\n${this.output()}`);
    }
    return result;
  }

  async kill(): Promise<ServerExit> {
    if (this.exit) return this.exit;
    this.child.kill('SIGKILL');
    return this.exited;
  }
}

/** Local TCP ports of the sockets a process holds (Linux /proc): which connections are its. */
export function localPortsOf(pid: number): Set<number> {
  const inodes = new Set<string>();
  try {
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      try {
        const match = fs.readlinkSync(`/proc/${pid}/fd/${fd}`).match(/^socket:\[(\d+)\]$/);
        if (match?.[1]) inodes.add(match[1]);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return new Set();
  }
  const ports = new Set<number>();
  for (const file of [`/proc/${pid}/net/tcp`, `/proc/${pid}/net/tcp6`]) {
    let table = '';
    try {
      table = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of table.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      if (local && fields[9] && inodes.has(fields[9]))
        ports.add(Number.parseInt(local.split(':')[1] ?? '', 16));
    }
  }
  return ports;
}
