import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { freePort, sleep } from './processes.js';

export const REDIS_SERVER = '/usr/bin/redis-server';
export const hasRedisServer = fs.existsSync(REDIS_SERVER);

/**
 * A redis-server of the test's own on a free port (never the shared TEST_REDIS_URL), which the test
 * may hang (SIGSTOP: connections stay open, nothing answers), kill, resume and start again.
 */
export interface TestRedisServer {
  url: string;
  port: number;
  /** SIGSTOP: a hung server, as on a network partition. */
  pause(): void;
  resume(): void;
  /** SIGKILL: connections are refused until start(). */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty). */
  start(): Promise<void>;
  close(): Promise<void>;
}

async function waitForPort(port: number, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port}`);
    await sleep(50);
  }
}

export async function startRedisServer(): Promise<TestRedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async () => {
    child = spawn(
      REDIS_SERVER,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await waitForPort(port);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGCONT');
    running.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    kill: stop,
    start: launch,
    close: stop,
  };
}
