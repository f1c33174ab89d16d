import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * A local SMTP server that accepts every message and discards it (bench/scenarios/mail.ts): plain
 * SMTP, no authentication, no STARTTLS. It reads only a message's header block, for its Message-ID
 * (to count distinct messages: a retried one arrives twice with the same id) and its arrival time;
 * the first message of each run is kept whole, for a correctness check with a real MIME parser.
 */
export interface SmtpSink {
  url: string;
  /** Distinct Message-IDs received since the last reset. */
  readonly distinct: number;
  /** Messages received since the last reset (duplicates included). */
  readonly received: number;
  /** Bytes of message data received since the last reset. */
  readonly bytes: number;
  /** Epoch ms of the last message's end of data. */
  readonly lastAt: number;
  /** The first message received since the last reset, as received. */
  readonly firstRaw: string | undefined;
  reset(): void;
  /** Resolves once `count` distinct Message-IDs have arrived; rejects after `timeoutMs`. */
  waitForDistinct(count: number, timeoutMs: number, what: string): Promise<void>;
  close(): Promise<void>;
}

const nowMs = () => performance.timeOrigin + performance.now();
const MESSAGE_ID = /^message-id:[ \t]*(<[^>\r\n]+>)/im;

export async function startSmtpSink(): Promise<SmtpSink> {
  let ids = new Set<string>();
  let received = 0;
  let bytes = 0;
  let lastAt = 0;
  let firstRaw: string | undefined;
  let waiter: { count: number; resolve: () => void } | undefined;

  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // nodemailer's pool keeps its connections open between messages, as the worker's does.
    socketTimeout: 60_000,
    closeTimeout: 1000,
    onData(stream, _session, callback) {
      let head = '';
      let whole: Buffer[] | undefined = firstRaw === undefined ? [] : undefined;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        whole?.push(chunk);
        // The header block ends at the first empty line; nodemailer puts Message-ID near the top.
        if (head.length < 16_384 && !head.includes('\r\n\r\n')) head += chunk.toString('latin1');
      });
      stream.on('error', callback);
      stream.on('end', () => {
        received++;
        lastAt = nowMs();
        const id = MESSAGE_ID.exec(head.split('\r\n\r\n', 1)[0] ?? '')?.[1] ?? `(none ${received})`;
        ids.add(id);
        if (whole && firstRaw === undefined) firstRaw = Buffer.concat(whole).toString('utf8');
        whole = undefined;
        if (waiter && ids.size >= waiter.count) {
          waiter.resolve();
          waiter = undefined;
        }
        callback();
      });
    },
  });
  server.on('error', () => {
    // a client dropping its connection is not a failure of the run; the counts tell what arrived
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://127.0.0.1:${port}`,
    get distinct() {
      return ids.size;
    },
    get received() {
      return received;
    },
    get bytes() {
      return bytes;
    },
    get lastAt() {
      return lastAt;
    },
    get firstRaw() {
      return firstRaw;
    },
    reset() {
      ids = new Set();
      received = 0;
      bytes = 0;
      lastAt = 0;
      firstRaw = undefined;
    },
    async waitForDistinct(count, timeoutMs, what) {
      if (ids.size >= count) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => {
          waiter = { count, resolve };
        }),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`${what}: ${ids.size} of ${count} messages after ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]).finally(() => clearTimeout(timer));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
