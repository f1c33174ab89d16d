/**
 * The floor for webhook delivery, run as a child process by bench/scenarios/webhooks.ts: a plain
 * Node loop posting `count` signed bodies to a receiver with `concurrency` requests in flight, over
 * undici with the same connection pool shape as the worker's (createSafeFetch: `connections` per
 * origin). No database, no queue, no SSRF guard. Prints `{ ms, cpuMs, sent, failed }` on stdout: the
 * time from the first request to the last answer, and the CPU time the loop used meanwhile.
 *
 * Input (environment): BENCH_SENDER = JSON `{ url, count, concurrency, connections, secret }`.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { deliveryBody } from '../../src/modules/webhooks/events.js';
import { signedHeaders } from '../../src/modules/webhooks/signing.js';

interface SenderInput {
  url: string;
  count: number;
  concurrency: number;
  connections: number;
  secret: string;
}

/** The same data shape as the events the scenario records (see sampleEventData there). */
export function sampleEventData(n: number) {
  return {
    orderId: randomUUID(),
    orderNumber: String(100_000 + n),
    customerEmail: `customer${n}@example.com`,
    customerName: 'Jane Doe',
    total: 42.5,
    itemCount: 2,
    couponCode: null,
    n,
  };
}

async function main() {
  const input = JSON.parse(process.env.BENCH_SENDER ?? '') as SenderInput;
  const now = new Date();
  const deliveries = Array.from({ length: input.count }, (_, n) => ({
    id: randomUUID(),
    body: deliveryBody('order.created', now, sampleEventData(n)),
  }));
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: input.connections });
  let next = 0;
  let failed = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: input.concurrency }, async () => {
      while (next < deliveries.length) {
        const delivery = deliveries[next++] as (typeof deliveries)[number];
        try {
          const response = await request(input.url, {
            dispatcher: agent,
            method: 'POST',
            headers: {
              ...signedHeaders({
                secret: input.secret,
                deliveryId: delivery.id,
                event: 'order.created',
                body: delivery.body,
                now: new Date(),
              }),
            },
            body: delivery.body,
          });
          await response.body.text();
          if (response.statusCode < 200 || response.statusCode >= 300) failed++;
        } catch {
          failed++;
        }
      }
    }),
  );
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  await agent.close();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  process.stdout.write(JSON.stringify({ ms, cpuMs, sent: deliveries.length, failed }));
}

if (process.env.BENCH_SENDER) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  });
}
