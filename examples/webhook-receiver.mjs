// Receives Emporium webhooks, verifies their signatures (Standard Webhooks headers, timestamp within
// 5 minutes) and prints each verified event as one JSON line; refuses anything else with 400.
//
//   EMPORIUM_WEBHOOK_SECRET=whsec_… PORT=4000 node examples/webhook-receiver.mjs
//
// Point a webhook at http://<this host>:4000/emporium. Deliveries are at-least-once: de-duplicate on
// the delivery id, and answer quickly (do slow work after the 2xx).
import http from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '@emporium/sdk';

const secret = process.env.EMPORIUM_WEBHOOK_SECRET;
if (!secret) throw new Error('set EMPORIUM_WEBHOOK_SECRET to the webhook signing secret (whsec_…)');
const seen = new Set();

const server = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const rawBody = Buffer.concat(chunks); // the exact bytes: never re-serialise parsed JSON
  try {
    const webhook = await verifyWebhook(rawBody, req.headers, secret);
    if (!seen.has(webhook.id)) {
      seen.add(webhook.id);
      console.log(
        JSON.stringify({
          id: webhook.id,
          event: webhook.event,
          test: webhook.test,
          data: webhook.payload.data,
        }),
      );
    }
    res.writeHead(204).end();
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    console.error(JSON.stringify({ refused: error.message }));
    res.writeHead(400, { 'content-type': 'text/plain' }).end(error.message);
  }
});

server.listen(Number(process.env.PORT ?? 4000), '127.0.0.1', () => {
  console.log(JSON.stringify({ listening: `http://127.0.0.1:${server.address().port}` }));
});
process.on('SIGTERM', () => server.close());
