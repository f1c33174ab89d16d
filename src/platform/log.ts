import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import pino, { type Logger, type LoggerOptions } from 'pino';
import type PinoPretty from 'pino-pretty';

/** Never logged, wherever they appear: keys, tokens, cookies, passwords, secrets, codes. */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.secret',
  '*.token',
  '*.apiKey',
  '*.oneTimeCode',
];

/** LOG_FORMAT: one JSON object a line (for collectors), or readable lines (for a person at a terminal). */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * LOG_FORMAT when set; otherwise readable lines only where a person is reading them (development, at a
 * terminal), and JSON wherever a program is (production, or output piped to a file or a collector).
 */
export function chooseLogFormat(
  setting: LogFormat | undefined,
  production: boolean,
  tty: boolean,
): LogFormat {
  if (setting !== undefined) return setting;
  return !production && tty ? 'pretty' : 'json';
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
}

/**
 * The process's logger, on stdout unless `destination` is given. Pretty lines are formatted in this
 * thread, synchronously, from the same redacted JSON: no transport worker, and nothing a JSON line would
 * hide can show in a pretty one.
 */
export function createLogger(level: string, format: LogFormat = 'json', destination?: Writable): Logger {
  if (format === 'json')
    return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
  // Loaded only for pretty lines: a JSON process (production) never pays for it (~2.5 MB, ~30 ms).
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  const stream = pretty({
    destination: destination ?? 1,
    sync: true,
    colorize: destination === undefined && process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
  return pino(loggerOptions(level), stream);
}
