import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { chooseLogFormat } from './log.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * What `npm start` does with its logger (config from the environment → createLogger), in a child
 * process whose stdout is a pipe or, through script(1), a terminal; it logs one line carrying secrets.
 */
const SCRIPT = `
import { loadConfig } from './src/config.ts';
import { createLogger } from './src/platform/log.ts';
const config = loadConfig();
const logger = createLogger(config.logLevel, config.logFormat);
logger.info({ order: 'ord_1', user: { password: 'hunter2' }, req: { headers: { authorization: 'Bearer sk_live_1' } } }, 'order placed');
`;

function logOutput(env: Record<string, string>, terminal: boolean): string {
  const node = [process.execPath, '--import', 'tsx', '--input-type=module', '-e', SCRIPT];
  const quoted = node.map((arg) => `'${arg.replaceAll("'", `'\\''`)}'`).join(' ');
  const [file, args] = terminal
    ? ['script', ['-qfec', quoted, '/dev/null']]
    : [node[0] as string, node.slice(1)];
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', ...env };
  for (const name of ['LOG_FORMAT', 'NODE_ENV']) if (!(name in env)) delete childEnv[name];
  const output = execFileSync(file, args, { cwd: ROOT, env: childEnv, encoding: 'utf8', timeout: 30_000 });
  // A terminal gets colours, and CR LF line ends.
  return stripVTControlCharacters(output).replaceAll('\r\n', '\n');
}

function expectJson(output: string) {
  const lines = output.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0] as string)).toMatchObject({
    level: 'info',
    msg: 'order placed',
    order: 'ord_1',
    user: { password: '[redacted]' },
    req: { headers: { authorization: '[redacted]' } },
  });
}

function expectPretty(output: string) {
  expect(() => JSON.parse(output.trim().split('\n')[0] as string)).toThrow();
  expect(output).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: order placed\n/);
  expect(output).toMatch(/^ {4}order: "ord_1"$/m);
  expect(output).toMatch(/"password": "\[redacted\]"/);
  expect(output).toMatch(/"authorization": "\[redacted\]"/);
  expect(output).not.toMatch(/hunter2|sk_live_1/);
}

describe('log format', () => {
  it.each([
    // [LOG_FORMAT, production, terminal, format]
    [undefined, false, true, 'pretty'],
    [undefined, false, false, 'json'],
    [undefined, true, true, 'json'],
    [undefined, true, false, 'json'],
    ['json', false, true, 'json'],
    ['pretty', true, false, 'pretty'],
    ['pretty', false, false, 'pretty'],
  ] as const)('LOG_FORMAT %s, production %s, terminal %s: %s', (setting, production, tty, format) => {
    expect(chooseLogFormat(setting, production, tty)).toBe(format);
  });

  const hasScript = (() => {
    try {
      execFileSync('script', ['-qfec', 'true', '/dev/null']);
      return true;
    } catch {
      return false;
    }
  })();

  it('development at a terminal: readable lines, secrets still redacted', { timeout: 30_000 }, (ctx) => {
    if (!hasScript) ctx.skip();
    expectPretty(logOutput({}, true));
  });

  it('production at a terminal, or LOG_FORMAT=json: JSON', { timeout: 60_000 }, (ctx) => {
    if (!hasScript) ctx.skip();
    expectJson(logOutput({ NODE_ENV: 'production' }, true));
    expectJson(logOutput({ LOG_FORMAT: 'json' }, true));
  });

  it('output piped (CI, a collector): JSON; LOG_FORMAT=pretty: readable lines', { timeout: 60_000 }, () => {
    expectJson(logOutput({}, false));
    expectPretty(logOutput({ LOG_FORMAT: 'pretty' }, false));
    expectPretty(logOutput({ LOG_FORMAT: 'pretty', NODE_ENV: 'production' }, false));
  });
});
