import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server on 127.0.0.1 and a random port that keeps every message it receives, for
 * tests of outgoing e-mail. Plain SMTP (no STARTTLS); authentication is optional unless `auth`
 * is given, in which case those credentials are required.
 *
 * Parsing is deliberately minimal: unfolded headers (RFC 2047 encoded words decoded), and the
 * text/plain and text/html parts with quoted-printable or base64 transfer encoding undone.
 */

export interface CaughtMessage {
  /** SMTP envelope: MAIL FROM and RCPT TO addresses. */
  envelope: { from: string | undefined; to: string[] };
  /** Header names in lower case; values unfolded and decoded. */
  headers: Record<string, string>;
  subject: string | undefined;
  to: string | undefined;
  from: string | undefined;
  /** The text/plain part (or the whole body of a single-part message), decoded. */
  text: string;
  /** The text/html part, decoded, when there is one. */
  html: string | undefined;
  /** The user name the client authenticated as, if it did. */
  authUser: string | undefined;
  /** The message exactly as received (after SMTP dot-unstuffing). */
  raw: string;
}

export interface SmtpCatcher {
  /** `smtp://127.0.0.1:<port>` (with the configured credentials, when `auth` was given). */
  url: string;
  port: number;
  /** The messages it accepted (answered 250). */
  messages: CaughtMessage[];
  /** Every message whose data it received, accepted, refused or left unanswered, in order. */
  received: CaughtMessage[];
  /** Resolves with the first message (already received or to come) matching the predicate. */
  waitFor(predicate?: (message: CaughtMessage) => boolean, timeoutMs?: number): Promise<CaughtMessage>;
  close(): Promise<void>;
}

/** The answer to a message's data: an SMTP error reply, or none at all (the server stalls). */
export type SmtpFault = { code: number; message: string } | 'stall';

export interface SmtpCatcherOptions {
  auth?: { user: string; pass: string };
  /**
   * Decides the answer to each message once its data arrived: undefined accepts it (250), a fault
   * refuses it (`{ code: 451, … }`) or never answers ('stall', until the server closes).
   */
  fault?: (message: CaughtMessage) => SmtpFault | undefined;
}

export async function startSmtpCatcher(options: SmtpCatcherOptions = {}): Promise<SmtpCatcher> {
  const messages: CaughtMessage[] = [];
  const received: CaughtMessage[] = [];
  const waiters = new Set<() => void>();
  const { auth } = options;

  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: auth === undefined,
    logger: false,
    closeTimeout: 1000,
    onAuth(credentials, _session, callback) {
      if (auth && (credentials.username !== auth.user || credentials.password !== auth.pass)) {
        callback(new Error('Invalid username or password'));
        return;
      }
      callback(null, { user: credentials.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mailFrom = session.envelope.mailFrom;
        const message = parseMessage(raw, {
          from: mailFrom === false ? undefined : mailFrom.address,
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          authUser: typeof session.user === 'string' ? session.user : undefined,
        });
        received.push(message);
        const fault = options.fault?.(message);
        if (fault === 'stall') return;
        if (fault) {
          callback(Object.assign(new Error(fault.message), { responseCode: fault.code }));
          return;
        }
        messages.push(message);
        for (const wake of [...waiters]) wake();
        callback();
      });
    },
  });
  server.on('error', () => {
    // a client dropping its connection is not a test failure; assertions look at `messages`
  });

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  const credentials = auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.pass)}@` : '';

  return {
    url: `smtp://${credentials}127.0.0.1:${port}`,
    port,
    messages,
    received,
    waitFor(predicate = () => true, timeoutMs = 5000) {
      return new Promise<CaughtMessage>((resolve, reject) => {
        const check = () => {
          const found = messages.find(predicate);
          if (!found) return false;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(found);
          return true;
        };
        const wake = () => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no matching e-mail within ${timeoutMs} ms (${messages.length} received)`));
        }, timeoutMs);
        if (!check()) waiters.add(wake);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function parseMessage(
  raw: string,
  session: { from: string | undefined; to: string[]; authUser: string | undefined },
): CaughtMessage {
  const { headers, body } = splitHeaders(raw);
  const content = readContent(headers, body);
  return {
    envelope: { from: session.from, to: session.to },
    headers,
    subject: headers.subject,
    to: headers.to,
    from: headers.from,
    text: content.text ?? '',
    html: content.html,
    authUser: session.authUser,
    raw,
  };
}

function splitHeaders(part: string): { headers: Record<string, string>; body: string } {
  const normalized = part.replace(/\r\n/g, '\n');
  const end = normalized.indexOf('\n\n');
  const head = end === -1 ? normalized : normalized.slice(0, end);
  const body = end === -1 ? '' : normalized.slice(end + 2);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] ??= decodeWords(line.slice(colon + 1).trim());
  }
  return { headers, body };
}

/** The text/plain and text/html parts of a message, searching nested multiparts. */
function readContent(
  headers: Record<string, string>,
  body: string,
): { text: string | undefined; html: string | undefined } {
  const type = (headers['content-type'] ?? 'text/plain').toLowerCase();
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  if (type.startsWith('multipart/') && boundary) {
    const found: { text: string | undefined; html: string | undefined } = {
      text: undefined,
      html: undefined,
    };
    const parts = body.split(`--${boundary}`).slice(1);
    for (const part of parts) {
      if (part.startsWith('--')) break;
      const inner = splitHeaders(part.replace(/^\n/, ''));
      const content = readContent(inner.headers, inner.body.replace(/\n$/, ''));
      found.text ??= content.text;
      found.html ??= content.html;
    }
    return found;
  }
  const decoded = decodeBody(body, headers['content-transfer-encoding']);
  if (type.startsWith('text/html')) return { text: undefined, html: decoded };
  return { text: decoded, html: undefined };
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch (encoding?.toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable':
      return decodeQuotedPrintable(body.replace(/=\n/g, ''));
    default:
      return body;
  }
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text.slice(i + 1, i + 3);
    if (text[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(text[i] as string, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`); whitespace between two words is dropped. */
function decodeWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g, (_match, _charset: string, kind: string, data: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}
