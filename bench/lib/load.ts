import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import { databaseCpu, databaseCpuSince } from './cpu-time.js';

/**
 * autocannon runs in a child process of its own, so the load generator never shares an event loop
 * with the server under test (the servers live in the bench process).
 */
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon');

const CHILD = `
const autocannon = require(process.env.BENCH_AUTOCANNON);
// The options come on stdin: request bodies can outgrow what an environment variable may hold.
let input = '';
process.stdin.setEncoding('utf8').on('data', (chunk) => { input += chunk; }).on('end', () => {
  const options = JSON.parse(input);
  // A body drawn at random for each request (e.g. a random product per checkout).
  const bodies = options.bodies;
  const paths = options.paths;
  delete options.bodies;
  delete options.paths;
  let next = 0;
  if (bodies || paths) {
    options.requests = [{ setupRequest: (request) => ({
      ...request,
      ...(bodies ? { body: bodies[Math.floor(Math.random() * bodies.length)] } : {}),
      ...(paths ? { path: paths[next++ % paths.length] } : {}),
    }) }];
  }
  autocannon(options, (error, result) => {
    if (error) { console.error(error.stack || String(error)); process.exit(1); }
    process.stdout.write(JSON.stringify(result));
  });
});
`;

export interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  durationSec: number;
  /** Default GET. */
  method?: 'GET' | 'POST' | 'PATCH';
  /** The request body (set the content-type header to match). */
  body?: string;
  /** Bodies to draw from at random, one per request (instead of `body`). */
  bodies?: string[];
  /** Paths taken in turn, one per request (each request a different resource, e.g. a cart). */
  paths?: string[];
  /** A request without an answer after this long counts as a timeout (autocannon's default: 10 s). */
  timeoutSec?: number;
}

export interface LoadResult {
  /** Average of autocannon's per-second samples. */
  requestsPerSec: number;
  totalRequests: number;
  /** Responses with a 2xx status the load generator received. */
  responses2xx: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  non2xx: number;
  /** Responses per status code, e.g. { "201": 812, "409": 3 }. */
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
  durationSec: number;
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number };
  non2xx: number;
  '2xx': number;
  statusCodeStats?: Record<string, { count: number | string }>;
  errors: number;
  timeouts: number;
  duration: number;
}

/** One autocannon run in a child process; resolves when the child has exited. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const load = {
    url: options.url,
    headers: options.headers ?? {},
    connections: options.connections,
    duration: options.durationSec,
    ...(options.method ? { method: options.method } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(options.bodies ? { bodies: options.bodies } : {}),
    ...(options.paths ? { paths: options.paths } : {}),
    ...(options.timeoutSec ? { timeout: options.timeoutSec } : {}),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CHILD], {
      env: { ...process.env, BENCH_AUTOCANNON: AUTOCANNON },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end(JSON.stringify(load));
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}: ${err.trim()}`));
      try {
        const r = JSON.parse(out) as AutocannonResult;
        resolve({
          requestsPerSec: r.requests.average,
          totalRequests: r.requests.total,
          responses2xx: r['2xx'],
          latencyP50Ms: r.latency.p50,
          latencyP99Ms: r.latency.p99,
          latencyMaxMs: r.latency.max,
          non2xx: r.non2xx,
          statusCounts: Object.fromEntries(
            Object.entries(r.statusCodeStats ?? {}).map(([code, stat]) => [code, Number(stat.count)]),
          ),
          errors: r.errors,
          timeouts: r.timeouts,
          durationSec: r.duration,
        });
      } catch (error) {
        reject(new Error(`autocannon printed no result (${String(error)}): ${out.slice(0, 500)} ${err}`));
      }
    });
  });
}

export interface MeasuredLoad extends LoadResult {
  /** CPU time (user + system) of this (server) process per request, in microseconds. */
  serverCpuUsPerRequest: number;
  serverCpuUserUsPerRequest: number;
  serverCpuSystemUsPerRequest: number;
  /** CPU time of the machine's PostgreSQL processes per request over the measured run, in microseconds. */
  databaseCpuUsPerRequest: number;
  /** The machine's 1-minute load average just before the warm-up: other work competing for the CPUs. */
  loadAverageBefore: number;
  /** Event-loop utilisation of this (server) process over the measured run, 0..1. */
  serverEventLoopUtilization: number;
  /** 2xx responses of the warm-up run (writes made during the warm-up count too). */
  warmupResponses2xx: number;
}

/**
 * A warm-up run whose figures are discarded, then the measured run, during which this process's CPU
 * time and event-loop utilisation are recorded (the server under test runs in this process). Any
 * non-2xx answer, error or timeout fails the benchmark: a fast 429 or 500 is not throughput.
 */
export async function warmUpAndMeasure(
  options: Omit<LoadOptions, 'durationSec'> & { warmupSec: number; durationSec: number },
): Promise<MeasuredLoad> {
  const check = (label: string, r: LoadResult) => {
    if (r.non2xx || r.errors || r.timeouts) {
      throw new Error(
        `${label} against ${options.url}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts; statuses ${JSON.stringify(r.statusCounts)}`,
      );
    }
  };
  const loadAverageBefore = os.loadavg()[0] ?? 0;
  let warmupResponses2xx = 0;
  if (options.warmupSec > 0) {
    const warmup = await runLoad({ ...options, durationSec: options.warmupSec });
    check('warm-up', warmup);
    warmupResponses2xx = warmup.responses2xx;
  }
  const cpuBefore = process.cpuUsage();
  const databaseBefore = databaseCpu();
  const eluBefore = performance.eventLoopUtilization();
  const result = await runLoad(options);
  const cpu = process.cpuUsage(cpuBefore);
  const databaseSeconds = databaseCpuSince(databaseBefore);
  const elu = performance.eventLoopUtilization(eluBefore);
  check('measured run', result);
  const requests = Math.max(1, result.totalRequests);
  return {
    ...result,
    serverCpuUsPerRequest: (cpu.user + cpu.system) / requests,
    serverCpuUserUsPerRequest: cpu.user / requests,
    serverCpuSystemUsPerRequest: cpu.system / requests,
    databaseCpuUsPerRequest: (databaseSeconds * 1e6) / requests,
    loadAverageBefore,
    serverEventLoopUtilization: elu.utilization,
    warmupResponses2xx,
  };
}
