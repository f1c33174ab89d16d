import { randomUUID } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';

/**
 * Outgoing e-mail (admin notices, one-time login codes, the stores' notifications). With an SMTP URL
 * it sends through a pooled nodemailer transport; without one it writes each e-mail to the log,
 * marked as development only, as the contract decides for an unset SMTP_URL. Sending errors are
 * thrown: callers decide whether to retry. SMTP credentials never appear in a log line or an error
 * message.
 */

export interface MailMessage {
  to: string | string[];
  subject: string;
  text: string;
  /** With `text`, a multipart/alternative message. */
  html?: string;
  /**
   * The sender's name (a store's): `From: "<fromName>" <MAIL_FROM's address>`. The address is always
   * MAIL_FROM's (the one the SMTP relay lets us send as). Default: MAIL_FROM as configured.
   */
  fromName?: string;
  /** Where replies go (a store's contact e-mail). */
  replyTo?: string | null;
  /**
   * A stable id of the message (a notification's id): the Message-ID becomes `<messageKey@MAIL_FROM's
   * domain>`, the same on every retry, so a receiver can tell a repeat. Default: a new one per send.
   */
  messageKey?: string;
}

/** What became of an accepted message. */
export interface SentMail {
  /** Its Message-ID header, `<…@…>`. */
  messageId: string;
  /** true: written to the log (no SMTP_URL), not sent. */
  logged: boolean;
}

export interface Mailer {
  /** Resolves once the SMTP server has accepted the message (or it has been logged); rejects with a MailError. */
  send(message: MailMessage): Promise<SentMail>;
  /** Waits for sends in progress, then closes the SMTP connections. */
  close(): Promise<void>;
}

export interface MailerOptions {
  /** `smtp://` or `smtps://`, credentials in the URL (percent-encoded); unset: e-mails go to the log. */
  smtpUrl: string | undefined;
  /** Sender, `Name <address>` or a bare address. */
  from: string;
  logger: Logger;
  /**
   * Without an SMTP URL in production, log only the sender and recipients: the subject and text
   * may hold a one-time code, and no secret is logged in production.
   */
  production?: boolean;
  /** Connection, greeting and inactivity time-out of the SMTP connection, in ms (10 s). */
  timeoutMs?: number;
  /**
   * SMTP connections kept open at most (8): messages go out in parallel, one at a time per
   * connection, so this bounds the rate (a local relay takes several hundred a second over 8).
   */
  maxConnections?: number;
}

export const DEV_MAIL_MARK = 'development only: SMTP_URL is not set';

/** An e-mail that could not be sent; the message never holds the SMTP credentials. */
export class MailError extends Error {
  override name = 'MailError';
  constructor(
    message: string,
    /** nodemailer's code, such as `ECONNECTION`, `ETIMEDOUT` or `EAUTH`. */
    readonly code: string | undefined,
    /** The SMTP reply code, when the server refused. */
    readonly responseCode: number | undefined,
  ) {
    super(message);
  }
}

/** The SMTP URL with any user name and password replaced, for logs: `smtp://***@mail.example.com:587`. */
export function redactSmtpUrl(smtpUrl: string): string {
  try {
    const url = new URL(smtpUrl);
    return `${url.protocol}//${url.username || url.password ? '***@' : ''}${url.host}`;
  } catch {
    return '[unparsable SMTP URL]';
  }
}

/** The address of a mailbox as MAIL_FROM gives it (`Name <address>` or a bare address). */
export function addressOf(mailbox: string): string {
  const match = /<([^<>\s]+)>\s*$/.exec(mailbox);
  return (match?.[1] ?? mailbox).trim();
}

/** A display name made safe for a header: no control characters (no header injection), trimmed. */
const headerSafe = (text: string) => text.replace(/\p{Cc}+/gu, ' ').trim();

/** The sender and Message-ID of a message, the same in both modes. */
function envelopeOf(from: string, message: MailMessage) {
  const address = addressOf(from);
  const domain = address.slice(address.lastIndexOf('@') + 1) || 'localhost';
  const name = message.fromName === undefined ? '' : headerSafe(message.fromName);
  const key = message.messageKey?.replace(/[^A-Za-z0-9._-]/g, '');
  return {
    from: name ? { name, address } : from,
    messageId: `<${key || randomUUID()}@${domain}>`,
    replyTo: message.replyTo ? message.replyTo : undefined,
  };
}

/** A `From` as a header shows it, for the log. */
const shownFrom = (from: string | { name: string; address: string }) =>
  typeof from === 'string' ? from : `"${from.name.replace(/["\\]/g, '')}" <${from.address}>`;

export function createMailer(options: MailerOptions): Mailer {
  return options.smtpUrl === undefined ? logMailer(options) : smtpMailer(options, options.smtpUrl);
}

function logMailer({ from, logger, production = false }: MailerOptions): Mailer {
  return {
    async send(message) {
      const envelope = envelopeOf(from, message);
      const sender = shownFrom(envelope.from);
      if (production) {
        logger.warn(
          { mail: { from: sender, to: message.to, messageId: envelope.messageId } },
          `${DEV_MAIL_MARK}; e-mail not sent, its subject and text are not logged in production`,
        );
        return { messageId: envelope.messageId, logged: true };
      }
      const { to, subject, text, html } = message;
      logger.info(
        {
          mail: {
            from: sender,
            to,
            ...(envelope.replyTo === undefined ? {} : { replyTo: envelope.replyTo }),
            messageId: envelope.messageId,
            subject,
            text,
            ...(html === undefined ? {} : { html }),
          },
        },
        `${DEV_MAIL_MARK}; e-mail written to the log instead of sent`,
      );
      return { messageId: envelope.messageId, logged: true };
    },
    async close() {},
  };
}

function smtpMailer(
  { from, logger, timeoutMs = 10_000, maxConnections = 8 }: MailerOptions,
  smtpUrl: string,
): Mailer {
  const server = redactSmtpUrl(smtpUrl);
  const scrub = secretScrubber(smtpUrl);
  // nodemailer is loaded on the first e-mail: a server that sends none (most starts) never holds it.
  let transport: Promise<Transporter> | undefined;
  const transportOf = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) => {
      const created = nodemailer.createTransport({
        pool: true,
        url: smtpUrl,
        maxConnections,
        // a connection is reopened after this many messages (nodemailer's default, 100, costs a
        // reconnection every 100 messages at full rate)
        maxMessages: 1000,
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs,
        // a server that keeps dropping the connection fails the message instead of retrying it for long
        maxRequeues: 1,
        logger: false,
        disableFileAccess: true,
        disableUrlAccess: true,
      });
      created.on('error', (error: Error) => {
        logger.warn({ smtp: server, error: scrub(error.message) }, 'SMTP transport error');
      });
      return created;
    }));
  const inFlight = new Set<Promise<unknown>>();
  let closed = false;

  return {
    async send(message) {
      if (closed) throw new MailError('the mailer is closed', 'ECLOSED', undefined);
      const envelope = envelopeOf(from, message);
      const sending = transportOf().then((t) =>
        t.sendMail({
          from: envelope.from,
          to: message.to,
          ...(envelope.replyTo === undefined ? {} : { replyTo: envelope.replyTo }),
          messageId: envelope.messageId,
          subject: message.subject,
          text: message.text,
          ...(message.html === undefined ? {} : { html: message.html }),
          xMailer: false,
        }),
      );
      inFlight.add(sending);
      try {
        await sending;
        // the subject and text may hold a one-time code: not logged
        logger.debug({ mail: { to: message.to, messageId: envelope.messageId } }, 'e-mail sent');
        return { messageId: envelope.messageId, logged: false };
      } catch (error) {
        const e = error as Error & { code?: unknown; responseCode?: unknown };
        throw new MailError(
          `sending e-mail through ${server} failed: ${scrub(e.message ?? String(error))}`,
          typeof e.code === 'string' ? e.code : undefined,
          typeof e.responseCode === 'number' ? e.responseCode : undefined,
        );
      } finally {
        inFlight.delete(sending);
      }
    },
    async close() {
      closed = true;
      await Promise.allSettled([...inFlight]);
      if (transport) (await transport).close();
    },
  };
}

/** Removes the URL's password (raw and decoded) and the URL itself from a text. */
function secretScrubber(smtpUrl: string): (text: string) => string {
  const secrets = new Set<string>([smtpUrl]);
  try {
    const url = new URL(smtpUrl);
    if (url.password) {
      secrets.add(url.password);
      secrets.add(safeDecode(url.password));
    }
  } catch {
    // an unparsable URL is only removed whole
  }
  const sorted = [...secrets].filter((s) => s !== '').sort((a, b) => b.length - a.length);
  return (text) => sorted.reduce((out, secret) => out.split(secret).join('***'), text);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
