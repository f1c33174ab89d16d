import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Where a connection is in its current request, from what node already counts (the socket's bytes
 * read, the request's `complete`), so tracking needs no listener on the data itself.
 */
export interface ConnectionState {
  socket: Pick<Socket, 'bytesRead'>;
  /** When the connection opened or its last response ended, and the socket's bytesRead then. */
  since: number;
  bytesAtStart: number;
  /** The latest request on it, once its headers were read. */
  request: Pick<IncomingMessage, 'complete'> | undefined;
  /** The request announced a body (Content-Length above 0, or Transfer-Encoding). */
  expectsBody: boolean;
  /** When the latest request's headers were read, and the socket's bytesRead where its body began. */
  bodySince: number;
  bodyBytesAtStart: number;
  /** The latest request's response has been sent. */
  responded: boolean;
}

/**
 * idle: a keep-alive connection between requests; headers: waiting for (the rest of) a request line
 * and headers, including a new connection; body: a request body still arriving (even after an early
 * response, while node reads and discards it); responding: the request is in, the answer is being made.
 */
export type Phase = 'idle' | 'headers' | 'body' | 'responding';

export function phaseOf(c: ConnectionState): Phase {
  if (c.request === undefined) return 'headers';
  if (c.expectsBody && !c.request.complete) return 'body';
  if (!c.responded) return 'responding';
  return c.socket.bytesRead > c.bytesAtStart ? 'headers' : 'idle';
}

/**
 * The size of a request's line and headers as sent (give or take optional white space): node reads
 * the first bytes of the body with them, so the socket's count at the request event is no start line.
 */
export function headBytes(
  request: Pick<IncomingMessage, 'method' | 'url' | 'httpVersion' | 'rawHeaders'>,
): number {
  let bytes = `${request.method} ${request.url} HTTP/${request.httpVersion}\r\n\r\n`.length;
  for (const part of request.rawHeaders) bytes += Buffer.byteLength(part) + 2; // ': ' or CR LF
  return bytes;
}

/** The minimum rate data must average once the grace period is over (Kestrel's MinRequestBodyDataRate). */
export interface RateRule {
  bytesPerSecond: number;
  graceMs: number;
}

/** A request body past its grace period whose average rate since its headers is below the minimum. */
export function tooSlowBody(c: ConnectionState, rule: RateRule, now: number): boolean {
  if (phaseOf(c) !== 'body') return false;
  const elapsed = now - c.bodySince;
  if (elapsed < rule.graceMs) return false;
  return ((c.socket.bytesRead - c.bodyBytesAtStart) * 1000) / elapsed < rule.bytesPerSecond;
}

/**
 * How many bytes a request still arriving is behind the minimum rate (above 0: slower than it, by
 * that much): slowness and age in one figure, so a stalled request opened long ago ranks before one
 * that has just begun. undefined for connections not waiting on their client.
 */
export function bytesBehind(c: ConnectionState, rule: RateRule, now: number): number | undefined {
  const phase = phaseOf(c);
  if (phase === 'body') {
    return (rule.bytesPerSecond * (now - c.bodySince)) / 1000 - (c.socket.bytesRead - c.bodyBytesAtStart);
  }
  if (phase === 'headers') {
    return (rule.bytesPerSecond * (now - c.since)) / 1000 - (c.socket.bytesRead - c.bytesAtStart);
  }
  return undefined;
}

/**
 * The connections to close to make room, at most `count`: idle keep-alive ones first (the oldest
 * first: their clients simply reconnect), then requests arriving slower than the minimum rate, the
 * furthest behind first. A request being answered, or arriving at least at the minimum rate, is
 * never chosen.
 */
export function shedOrder<C extends ConnectionState>(
  connections: C[],
  rule: RateRule,
  now: number,
  count: number,
): C[] {
  const idle: C[] = [];
  const slow: { connection: C; behind: number }[] = [];
  for (const connection of connections) {
    if (phaseOf(connection) === 'idle') {
      idle.push(connection);
      continue;
    }
    const behind = bytesBehind(connection, rule, now);
    if (behind !== undefined && behind > 0) slow.push({ connection, behind });
  }
  idle.sort((a, b) => a.since - b.since);
  if (idle.length >= count) return idle.slice(0, count);
  slow.sort((a, b) => b.behind - a.behind);
  return [...idle, ...slow.slice(0, count - idle.length).map((s) => s.connection)];
}
