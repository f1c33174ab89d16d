import { Agent, request } from 'undici';

/**
 * Paced request loops for the soak: each kind of request has a fixed rate and a fixed number of
 * loops. A loop takes the next slot of its kind's schedule, waits for it, sends, and checks the
 * answer's status; when the server is slower than the schedule the kind simply falls behind (a
 * server that slows down shows as lower throughput and higher latency, never as a growing queue in
 * the client). Every unexpected status and every socket error is counted per kind.
 */

export interface Shape {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Kind {
  name: string;
  /** Requests per second the schedule aims at. */
  rate: number;
  /** Loops of this kind (requests in flight at most). */
  concurrency: number;
  expectStatus: number;
  /** The request to send for the n-th slot; undefined skips the slot (nothing to ask yet). */
  next(n: number): Shape | undefined;
  /** Called with each answer of the expected status (e.g. to remember an order id). */
  onBody?(body: string): void;
}

export interface KindTally {
  name: string;
  sent: number;
  ok: number;
  /** Unexpected statuses, by status. */
  statuses: Record<string, number>;
  /** Socket errors and timeouts, by message. */
  errors: Record<string, number>;
  latenciesMs: number[];
}

export const failuresOf = (t: KindTally) =>
  Object.values(t.statuses).reduce((a, b) => a + b, 0) + Object.values(t.errors).reduce((a, b) => a + b, 0);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A request taking this long is counted as an error (a soak must not hang on one). */
const TIMEOUT_MS = 30_000;

export interface Traffic {
  tallies: KindTally[];
  /** Stops scheduling and waits for the requests in flight. */
  stop(): Promise<void>;
}

export function startTraffic(baseUrl: string, kinds: Kind[]): Traffic {
  const agent = new Agent({
    keepAliveTimeout: 10_000,
    connections: Math.max(...kinds.map((k) => k.concurrency)),
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
  });
  let stopping = false;
  const tallies: KindTally[] = [];
  const loops: Promise<void>[] = [];
  for (const kind of kinds) {
    const tally: KindTally = { name: kind.name, sent: 0, ok: 0, statuses: {}, errors: {}, latenciesMs: [] };
    tallies.push(tally);
    const interval = 1000 / kind.rate;
    let nextAt = performance.now();
    let slot = 0;
    const loop = async () => {
      while (!stopping) {
        const at = nextAt;
        // A kind more than a second behind drops those slots rather than sending them in a burst.
        nextAt = Math.max(at, performance.now() - 1000) + interval;
        const n = slot++;
        const wait = at - performance.now();
        if (wait > 0) await sleep(wait);
        if (stopping) return;
        const shape = kind.next(n);
        if (!shape) continue;
        tally.sent++;
        const started = performance.now();
        try {
          const response = await request(baseUrl + shape.path, {
            dispatcher: agent,
            method: shape.method,
            headers: { ...(shape.body ? { 'content-type': 'application/json' } : {}), ...shape.headers },
            body: shape.body,
          });
          const body = await response.body.text();
          tally.latenciesMs.push(performance.now() - started);
          if (response.statusCode === kind.expectStatus) {
            tally.ok++;
            kind.onBody?.(body);
          } else {
            const key = String(response.statusCode);
            tally.statuses[key] = (tally.statuses[key] ?? 0) + 1;
          }
        } catch (error) {
          const key = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
          tally.errors[key] = (tally.errors[key] ?? 0) + 1;
        }
      }
    };
    for (let i = 0; i < kind.concurrency; i++) loops.push(loop());
  }
  return {
    tallies,
    async stop() {
      stopping = true;
      await Promise.all(loops);
      await agent.close();
    },
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}
