import { openRaw, type RawConnection, STALLED_BODY } from './raw-connections.js';

/**
 * A flood of stalled request bodies, run as its own process (`node --import tsx
 * test/helpers/stalled-flood.ts PORT ADDRESSES PER_ADDRESS REOPEN_MS SECONDS FULL`) so that its
 * 10,000 sockets use neither the test's event loop nor its open-file limit: PER_ADDRESS connections
 * from each of 127.0.0.2… (ADDRESSES of them), each re-opened REOPEN_MS after the server closes it.
 * Prints `ready` once all were opened (or 20 s passed), then after SECONDS one JSON line of figures
 * (among them how long it held at least FULL connections open after `ready`), and exits.
 */
const [port, addresses, perAddress, reopenMs, seconds, full] = process.argv.slice(2).map(Number) as [
  number,
  number,
  number,
  number,
  number,
  number,
];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const opened: RawConnection[] = [];
let open = 0;
let closedWith408 = 0;

async function keepStalled(localAddress: string) {
  for (;;) {
    const connection = await openRaw(port, localAddress, STALLED_BODY).catch(() => undefined);
    if (connection !== undefined) {
      opened.push(connection);
      open += 1;
      await connection.waitClosed(600_000);
      open -= 1;
      if (connection.received().startsWith('HTTP/1.1 408 ')) closedWith408 += 1;
    }
    await sleep(reopenMs);
  }
}

const total = addresses * perAddress;
const attackers: Promise<void>[] = [];
// Ramped up 500 at a time, so the listen backlog does not turn the ramp into SYN retries.
for (let i = 0; i < total; i++) {
  attackers.push(keepStalled(`127.0.0.${2 + (i % addresses)}`));
  if (i % 500 === 499) await sleep(50);
}
const rampDeadline = performance.now() + 20_000;
while (opened.length < total && performance.now() < rampDeadline) await sleep(100);
process.stdout.write(`ready ${opened.length}\n`);
// How long the flood held at least FULL connections open, from `ready` on (sampled every 100 ms).
const ready = performance.now();
let heldFullMs = 0;
let peakOpen = open;
const sampler = setInterval(() => {
  peakOpen = Math.max(peakOpen, open);
  if (open >= full) heldFullMs = Math.round(performance.now() - ready);
}, 100);
await sleep(seconds * 1000);
clearInterval(sampler);
process.stdout.write(`${JSON.stringify({ opened: opened.length, closedWith408, peakOpen, heldFullMs })}\n`);
process.exit(0);
