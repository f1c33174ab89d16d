/**
 * The floor for sending e-mail, run as a child process by bench/scenarios/mail.ts: plain nodemailer
 * sending `count` pre-built messages (taken in turn from a JSON file, each sent with a Message-ID of
 * its own) through one pooled SMTP transport, `concurrency` messages in flight, with the transport
 * options the worker's mailer uses (the same pooled connection count). No database, no queue, no
 * rendering. Prints `{ ms, cpuMs, sent, failed }` on stdout: the time from the first message handed
 * to nodemailer to the last one accepted, and the CPU time the process used meanwhile.
 *
 * Input (environment): BENCH_MAIL_SENDER = JSON `{ smtpUrl, file, count, concurrency, transport }`;
 * the file holds `[{ from, replyTo, to, subject, html, text }]`.
 */
import fs from 'node:fs';
import nodemailer from 'nodemailer';

export interface PrebuiltMessage {
  from: string;
  replyTo: string | null;
  to: string;
  subject: string;
  html: string;
  text: string;
}

export interface MailSenderInput {
  smtpUrl: string;
  file: string;
  count: number;
  concurrency: number;
  /** nodemailer SMTP transport options besides the URL (pool, maxConnections, …). */
  transport: Record<string, unknown>;
  /** Names the run's Message-IDs, so that two runs never share one. */
  runTag: string;
}

async function main() {
  const input = JSON.parse(process.env.BENCH_MAIL_SENDER ?? '') as MailSenderInput;
  const messages = JSON.parse(fs.readFileSync(input.file, 'utf8')) as PrebuiltMessage[];
  if (messages.length === 0) throw new Error('no messages to send');
  const transport = nodemailer.createTransport({ ...input.transport, url: input.smtpUrl });
  let next = 0;
  let sent = 0;
  let failed = 0;
  let firstError: string | undefined;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: input.concurrency }, async () => {
      while (next < input.count) {
        const n = next++;
        const message = messages[n % messages.length] as PrebuiltMessage;
        try {
          await transport.sendMail({
            from: message.from,
            to: message.to,
            ...(message.replyTo ? { replyTo: message.replyTo } : {}),
            subject: message.subject,
            text: message.text,
            html: message.html,
            messageId: `<bare-${input.runTag}-${n}@bench.example>`,
            // as the worker's mailer (src/platform/mail.ts)
            xMailer: false,
          });
          sent++;
        } catch (error) {
          failed++;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  transport.close();
  process.stdout.write(
    JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, sent, failed, firstError }),
  );
}

if (process.env.BENCH_MAIL_SENDER) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  });
}
