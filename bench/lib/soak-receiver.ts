import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodySignature, sameSignature, standardSignature } from '../../src/modules/webhooks/signing.js';

/**
 * The soak's webhook endpoint: answers 200 at once and counts deliveries by id and event type. The
 * secret is known only once the webhook is registered, so it is set afterwards; every delivery that
 * arrives after that is checked against both signature schemes (an HMAC per delivery is cheap next
 * to the request itself), and any mismatch is counted as a bad signature.
 */
export async function startSoakReceiver() {
  let secret: string | undefined;
  const distinct = new Set<string>();
  const byEvent = new Map<string, number>();
  const counts = { requests: 0, verified: 0, badSignatures: 0, unverified: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['x-webhook-id']);
      counts.requests++;
      if (secret === undefined) counts.unverified++;
      else {
        const timestamp = Number(req.headers['webhook-timestamp']);
        const good =
          sameSignature(String(req.headers['x-webhook-signature']), bodySignature(secret, body)) &&
          sameSignature(
            String(req.headers['webhook-signature']),
            standardSignature(secret, id, timestamp, body),
          );
        if (good) counts.verified++;
        else counts.badSignatures++;
      }
      if (!distinct.has(id)) {
        distinct.add(id);
        const event = String(req.headers['x-webhook-event']);
        byEvent.set(event, (byEvent.get(event) ?? 0) + 1);
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setSecret(value: string) {
      secret = value;
    },
    counts,
    get distinct() {
      return distinct.size;
    },
    get duplicates() {
      return counts.requests - distinct.size;
    },
    byEvent: () => Object.fromEntries([...byEvent].sort()),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
