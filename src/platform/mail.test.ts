import net from 'node:net';
import { simpleParser } from 'mailparser';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type SmtpCatcher, startSmtpCatcher } from '../../test/helpers/smtp-catcher.js';
import { loggerOptions } from './log.js';
import { createMailer, DEV_MAIL_MARK, MailError, type Mailer, redactSmtpUrl } from './mail.js';

/** A pino logger (the application's options) writing JSON lines to memory. */
function memoryLogger(level = 'info') {
  const lines: string[] = [];
  const logger = pino(loggerOptions(level), { write: (line: string) => void lines.push(line) });
  return { logger, lines, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

/** A loopback port that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function catcher(options?: Parameters<typeof startSmtpCatcher>[0]): Promise<SmtpCatcher> {
  const started = await startSmtpCatcher(options);
  cleanups.push(() => started.close());
  return started;
}

function mailer(options: Parameters<typeof createMailer>[0]): Mailer {
  const created = createMailer(options);
  cleanups.push(() => created.close());
  return created;
}

describe('createMailer with an SMTP URL', () => {
  it('delivers To, Subject, the text and the HTML to the SMTP server', async () => {
    const smtp = await catcher();
    const { logger, lines } = memoryLogger('debug');
    const mail = mailer({ smtpUrl: smtp.url, from: 'Emporium <no-reply@shop.example.com>', logger });

    await mail.send({
      to: 'ada@example.com',
      subject: 'Your login code: 123456 – Café',
      text: `Your code is 123456.\nIt expires in 10 minutes.\n${'Déjà vu, '.repeat(30)}`,
      html: '<p>Your code is <b>123456</b>.</p>',
    });

    const received = await smtp.waitFor((m) => m.envelope.to.includes('ada@example.com'), 5000);
    expect(received.envelope.from).toBe('no-reply@shop.example.com');
    expect(received.to).toBe('ada@example.com');
    expect(received.from).toBe('Emporium <no-reply@shop.example.com>');
    expect(received.subject).toBe('Your login code: 123456 – Café');
    expect(received.text.trimEnd()).toBe(
      `Your code is 123456.\nIt expires in 10 minutes.\n${'Déjà vu, '.repeat(30)}`.trimEnd(),
    );
    expect(received.html?.trimEnd()).toBe('<p>Your code is <b>123456</b>.</p>');
    // sent e-mails are not written to the log
    expect(lines.join('')).not.toContain('123456');
  });

  it('sends to several recipients over the pooled connection', async () => {
    const smtp = await catcher();
    const { logger } = memoryLogger();
    const mail = mailer({ smtpUrl: smtp.url, from: 'no-reply@localhost', logger });

    await Promise.all([
      mail.send({ to: ['a@example.com', 'b@example.com'], subject: 'Webhook disabled', text: 'one' }),
      mail.send({ to: 'c@example.com', subject: 'Webhook disabled', text: 'two' }),
    ]);

    expect(smtp.messages).toHaveLength(2);
    const toAll = smtp.messages.find((m) => m.text.trim() === 'one');
    expect(toAll?.envelope.to).toEqual(['a@example.com', 'b@example.com']);
    expect(toAll?.to).toBe('a@example.com, b@example.com');
  });

  it('authenticates with the credentials of the URL', async () => {
    const smtp = await catcher({ auth: { user: 'mailer', pass: 'p@ss:w/rd' } });
    const { logger } = memoryLogger();
    const mail = mailer({ smtpUrl: smtp.url, from: 'no-reply@localhost', logger });

    await mail.send({ to: 'ada@example.com', subject: 'Hello', text: 'Hi' });

    expect((await smtp.waitFor()).authUser).toBe('mailer');
  });

  it('rejects refused credentials without revealing them', async () => {
    const smtp = await catcher({ auth: { user: 'mailer', pass: 'right-password' } });
    const { logger, lines } = memoryLogger('trace');
    const smtpUrl = `smtp://mailer:${encodeURIComponent('wrong/secret%pass')}@127.0.0.1:${smtp.port}`;
    const mail = mailer({ smtpUrl, from: 'no-reply@localhost', logger });

    const error = await mail.send({ to: 'ada@example.com', subject: 'Hello', text: 'Hi' }).catch((e) => e);

    expect(error).toBeInstanceOf(MailError);
    expect(error.code).toBe('EAUTH');
    expect(error.message).not.toContain('wrong/secret%pass');
    expect(error.message).not.toContain(encodeURIComponent('wrong/secret%pass'));
    expect(lines.join('')).not.toContain('secret');
    expect(smtp.messages).toHaveLength(0);
  });

  it('rejects when the server cannot be reached, without the password in the error', async () => {
    const port = await closedPort();
    const { logger, lines } = memoryLogger('trace');
    const mail = mailer({
      smtpUrl: `smtp://mailer:hunter2-very-secret@127.0.0.1:${port}`,
      from: 'no-reply@localhost',
      logger,
      timeoutMs: 2000,
    });

    const error = await mail.send({ to: 'ada@example.com', subject: 'Hello', text: 'Hi' }).catch((e) => e);

    expect(error).toBeInstanceOf(MailError);
    expect(error.message).toMatch(/ECONNREFUSED|connect/i);
    expect(error.message).toContain(`smtp://***@127.0.0.1:${port}`);
    expect(error.message).not.toContain('hunter2');
    expect(JSON.stringify(error)).not.toContain('hunter2');
    expect(String(error.stack)).not.toContain('hunter2');
    expect(lines.join('')).not.toContain('hunter2');
  });

  it('refuses to send after close', async () => {
    const smtp = await catcher();
    const mail = createMailer({
      smtpUrl: smtp.url,
      from: 'no-reply@localhost',
      logger: memoryLogger().logger,
    });
    await mail.close();
    await expect(mail.send({ to: 'ada@example.com', subject: 'Hello', text: 'Hi' })).rejects.toThrow(
      MailError,
    );
    expect(smtp.messages).toHaveLength(0);
  });
});

describe("a store's message", () => {
  const storeMessage = {
    to: 'buyer@example.com',
    fromName: 'Café "Acme", Inc.\r\nBcc: victim@example.com',
    replyTo: 'owner@acme.example',
    messageKey: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    subject: 'Order #1001 confirmed — Acme',
    html: '<table><tr><td>Thanks for your order <b>#1001</b></td></tr></table>',
    text: 'Thanks for your order #1001',
  };

  it('carries the store in From (MAIL_FROM its address), Reply-To, the given Message-ID, both parts', async () => {
    const smtp = await catcher();
    const mail = mailer({
      smtpUrl: smtp.url,
      from: 'Emporium <no-reply@shop.example.com>',
      logger: memoryLogger().logger,
    });

    const sent = await mail.send(storeMessage);

    expect(sent).toEqual({ messageId: `<${storeMessage.messageKey}@shop.example.com>`, logged: false });
    const raw = (await smtp.waitFor()).raw;
    const parsed = await simpleParser(raw);
    expect(parsed.from?.value).toEqual([
      { name: 'Café "Acme", Inc. Bcc: victim@example.com', address: 'no-reply@shop.example.com' },
    ]);
    expect(parsed.replyTo?.value).toEqual([{ name: '', address: 'owner@acme.example' }]);
    expect(parsed.messageId).toBe(sent.messageId);
    expect(parsed.subject).toBe(storeMessage.subject);
    expect(parsed.headers.get('content-type')).toMatchObject({ value: 'multipart/alternative' });
    expect(parsed.html).toBe(storeMessage.html);
    expect(parsed.text?.trim()).toBe(storeMessage.text);
    // the name cannot add a header: no Bcc, and nothing says which software sent it
    expect(parsed.headers.has('bcc')).toBe(false);
    expect(raw).not.toMatch(/^(x-mailer|bcc):/im);
    expect(smtp.messages[0]?.envelope.to).toEqual(['buyer@example.com']);
  });

  it('keeps the Message-ID across sends of the same message, and a new one without a key', async () => {
    const smtp = await catcher();
    const mail = mailer({
      smtpUrl: smtp.url,
      from: 'no-reply@shop.example.com',
      logger: memoryLogger().logger,
    });
    const first = await mail.send(storeMessage);
    const again = await mail.send(storeMessage);
    const plain = await mail.send({ to: 'a@example.com', subject: 'Hi', text: 'Hi' });
    expect(again.messageId).toBe(first.messageId);
    expect(plain.messageId).toMatch(/^<[0-9a-f-]{36}@shop\.example\.com>$/);
    const ids = await Promise.all(smtp.messages.map(async (m) => (await simpleParser(m.raw)).messageId));
    expect(ids).toEqual([first.messageId, first.messageId, plain.messageId]);
  });

  it.each([
    [451, 'Try again later'],
    [550, 'No such mailbox'],
  ])('a %i answer to the data rejects with that reply code', async (code, text) => {
    const smtp = await catcher({ fault: () => ({ code, message: text }) });
    const mail = mailer({ smtpUrl: smtp.url, from: 'no-reply@localhost', logger: memoryLogger().logger });
    const error = await mail.send(storeMessage).catch((e) => e);
    expect(error).toBeInstanceOf(MailError);
    expect(error.responseCode).toBe(code);
    expect(error.message).toContain(text);
    expect(smtp.received).toHaveLength(1);
    expect(smtp.messages).toHaveLength(0);
  });

  it('without an SMTP URL, logs From, Reply-To and Message-ID with the parts, and says it was logged', async () => {
    const { logger, records } = memoryLogger();
    const mail = mailer({ smtpUrl: undefined, from: 'Emporium <no-reply@localhost>', logger });
    const sent = await mail.send({ ...storeMessage, fromName: 'Acme' });
    expect(sent).toEqual({ messageId: `<${storeMessage.messageKey}@localhost>`, logged: true });
    expect(records()[0]).toMatchObject({
      mail: {
        from: '"Acme" <no-reply@localhost>',
        to: storeMessage.to,
        replyTo: storeMessage.replyTo,
        messageId: sent.messageId,
        subject: storeMessage.subject,
        text: storeMessage.text,
        html: storeMessage.html,
      },
    });
  });
});

describe('createMailer without an SMTP URL', () => {
  it('writes the e-mail to the log, marked as development only, and sends nothing', async () => {
    const smtp = await catcher();
    const { logger, records } = memoryLogger();
    const mail = mailer({ smtpUrl: undefined, from: 'Emporium <no-reply@localhost>', logger });

    await mail.send({ to: 'ada@example.com', subject: 'Your login code', text: 'Your code is 654321.' });

    const [record] = records();
    expect(record).toMatchObject({
      level: 'info',
      msg: expect.stringContaining(DEV_MAIL_MARK),
      mail: {
        from: 'Emporium <no-reply@localhost>',
        to: 'ada@example.com',
        subject: 'Your login code',
        text: 'Your code is 654321.',
      },
    });
    expect(records()).toHaveLength(1);
    expect(smtp.messages).toHaveLength(0);
  });

  it('in production logs the recipients but never the subject or the text', async () => {
    const { logger, lines, records } = memoryLogger();
    const mail = mailer({ smtpUrl: undefined, from: 'no-reply@localhost', logger, production: true });

    await mail.send({ to: 'ada@example.com', subject: 'Code 654321', text: 'Your code is 654321.' });

    expect(records()[0]).toMatchObject({
      level: 'warn',
      msg: expect.stringContaining(DEV_MAIL_MARK),
      mail: { to: 'ada@example.com' },
    });
    expect(lines.join('')).not.toContain('654321');
  });
});

describe('redactSmtpUrl', () => {
  it.each([
    ['smtps://user:pa%40ss@mail.example.com:465', 'smtps://***@mail.example.com:465'],
    ['smtp://mail.example.com', 'smtp://mail.example.com'],
    ['smtp://:only-password@mail.example.com:25', 'smtp://***@mail.example.com:25'],
    ['not a url', '[unparsable SMTP URL]'],
  ])('%s → %s', (input, expected) => {
    expect(redactSmtpUrl(input)).toBe(expected);
  });
});
