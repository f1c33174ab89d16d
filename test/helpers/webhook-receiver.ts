import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body exactly as received. */
  body: string;
  at: number;
  /** The sender's port: tells apart the connections (and so the processes) requests came from. */
  remotePort: number | undefined;
}

export type Responder = (request: ReceivedRequest) => {
  status: number;
  body?: string;
  headers?: Record<string, string>;
};

/**
 * A real local HTTP receiver for webhook tests: records every request with its raw body and answers
 * with what `respond` says (200 by default). `delayMs` holds each answer back that long after the
 * request was recorded, so that deliveries are in flight (received, not yet answered) for a while.
 * `holdUntil` holds every answer until it holds (checked after each request): a test can make sure
 * that more requests are in flight at once than one sender would ever have.
 */
export async function startWebhookReceiver(
  respond: Responder = () => ({ status: 200, body: 'ok' }),
  options: { delayMs?: number; holdUntil?: (received: readonly ReceivedRequest[]) => boolean } = {},
) {
  const received: ReceivedRequest[] = [];
  let responder = respond;
  const waiters: { predicate: () => boolean; resolve: () => void }[] = [];
  let held: (() => void)[] = [];
  let holding = options.holdUntil !== undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        remotePort: req.socket.remotePort,
      };
      received.push(request);
      const answer = responder(request);
      const reply = () => {
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
      };
      const answerLater = options.delayMs ? () => setTimeout(reply, options.delayMs) : reply;
      if (holding && options.holdUntil?.(received)) {
        holding = false;
        for (const release of held) release();
        held = [];
      }
      if (holding) held.push(answerLater);
      else answerLater();
      for (const waiter of [...waiters]) {
        if (waiter.predicate()) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    respondWith(next: Responder) {
      responder = next;
    },
    /** Resolves when `predicate` holds (checked after each request), or rejects after `timeoutMs`. */
    waitFor(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
      if (predicate()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`receiver: condition not met in ${timeoutMs} ms (${received.length} received)`)),
          timeoutMs,
        );
        waiters.push({
          predicate,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
