import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import {
  type ConnectionState,
  headBytes,
  phaseOf,
  type RateRule,
  shedOrder,
  tooSlowBody,
} from './connection-states.js';

export interface ConnectionLimits {
  /** Open connections of the process; at the cap the idle and the slowest make room for new ones. */
  maxConnections: number;
  /** Open connections of one remote address; 0: no such limit (behind a load balancer). */
  maxConnectionsPerAddress: number;
  /** Bytes per second a request body must average once its grace period is over; 0: no minimum. */
  minRequestBodyRate: number;
  /** How long a request body may arrive at any rate (slow start, a phone waking its radio). */
  minRequestBodyRateGraceMs: number;
}

/** Warnings are logged at most this often, with their counts: a flood must not flood the log too. */
const LOG_EVERY_MS = 10_000;
/** Too-slow bodies closed per turn of the event loop. */
const SHED_PER_TURN = 200;
/** The rate connections are ranked by when none is enforced: Kestrel's default minimum. */
const RANKING_RATE = 240;

interface Tracked extends ConnectionState {
  socket: Socket;
  address: string;
  response: ServerResponse | undefined;
}

/**
 * Caps the connections a process holds, in total and per client address, so that clients holding
 * connections open cannot use up the process's file descriptors, and sheds the slow rather than the
 * new: a request body arriving slower than the minimum rate after its grace period is answered 408;
 * and a connection arriving at the process cap closes the worst of those already open (idle
 * keep-alive ones first, then those furthest behind the minimum rate) instead of being turned away,
 * so stalled requests cannot lock everyone else out. A connection over the per-address cap, or at the
 * process cap with nothing to shed, is closed at once without an answer: writing one would be work on
 * behalf of the flood. Timeouts (REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS) still bound every connection.
 */
export function installConnectionLimits(
  server: Server,
  limits: ConnectionLimits,
  logger: FastifyBaseLogger,
): void {
  const rule: RateRule = {
    bytesPerSecond: limits.minRequestBodyRate || RANKING_RATE,
    graceMs: limits.minRequestBodyRateGraceMs,
  };
  // Shedding a few at a time makes room for the next arrivals too, so a flood does not rank every
  // open connection once per new one.
  const shedBatch = Math.max(1, Math.ceil(limits.maxConnections / 100));

  const counts = { refusedOverAddressLimit: 0, refusedAtCapacity: 0, shedAtCapacity: 0, tooSlowBodies: 0 };
  let lastLog = 0;
  const note = (kind: keyof typeof counts, n = 1) => {
    counts[kind] += n;
    const now = Date.now();
    if (now - lastLog < LOG_EVERY_MS) return;
    lastLog = now;
    logger.warn(
      {
        ...counts,
        maxConnections: limits.maxConnections,
        maxConnectionsPerAddress: limits.maxConnectionsPerAddress,
        minRequestBodyRate: limits.minRequestBodyRate,
      },
      'connections closed by the connection limits',
    );
    for (const key of Object.keys(counts) as (keyof typeof counts)[]) counts[key] = 0;
  };

  const open = new Map<Socket, Tracked>();
  const perAddress = new Map<string, number>();
  const forget = (connection: Tracked) => {
    if (!open.delete(connection.socket)) return;
    const left = (perAddress.get(connection.address) ?? 1) - 1;
    if (left > 0) perAddress.set(connection.address, left);
    else perAddress.delete(connection.address);
  };

  /** Closes a connection, with a 408 in the error body where a response can still be written. */
  const shed = (connection: Tracked) => {
    const phase = phaseOf(connection);
    forget(connection);
    // A request still arriving has no answer begun, unless its body outlived an early response.
    const canAnswer =
      server.listenerCount('clientError') > 0 &&
      (phase === 'headers' ||
        (phase === 'body' && !connection.responded && !connection.response?.headersSent));
    if (canAnswer) {
      const error = Object.assign(new Error('request not received in time'), {
        code: 'ERR_HTTP_REQUEST_TIMEOUT',
      });
      server.emit('clientError', error, connection.socket);
    }
    if (!connection.socket.destroyed) connection.socket.destroy();
  };

  /**
   * Sheds too-slow bodies a few hundred per turn of the event loop: a flood's bodies pass their grace
   * together, and closing thousands in one go would hold up every other request meanwhile.
   */
  const shedInTurns = (connections: Tracked[]) => {
    for (const connection of connections.splice(0, SHED_PER_TURN)) {
      if (!open.has(connection.socket)) continue; // closed meanwhile
      shed(connection);
      note('tooSlowBodies');
    }
    if (connections.length > 0) setImmediate(shedInTurns, connections);
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return; // already closed by the peer
    const fromAddress = (perAddress.get(address) ?? 0) + 1;
    if (limits.maxConnectionsPerAddress > 0 && fromAddress > limits.maxConnectionsPerAddress) {
      note('refusedOverAddressLimit');
      socket.destroy();
      return;
    }
    const now = performance.now();
    if (open.size >= limits.maxConnections) {
      const victims = shedOrder([...open.values()], rule, now, shedBatch);
      if (victims.length === 0) {
        note('refusedAtCapacity');
        socket.destroy();
        return;
      }
      for (const victim of victims) shed(victim);
      note('shedAtCapacity', victims.length);
    }
    const connection: Tracked = {
      socket,
      address,
      since: now,
      bytesAtStart: 0,
      request: undefined,
      response: undefined,
      expectsBody: false,
      bodySince: now,
      bodyBytesAtStart: 0,
      responded: false,
    };
    open.set(socket, connection);
    // Counted afresh: the shedding above may have closed some of this address's own connections.
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    socket.once('close', () => forget(connection));
  });

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const connection = open.get(request.socket);
    if (connection === undefined) return;
    connection.request = request;
    connection.response = response;
    connection.responded = false;
    connection.expectsBody =
      request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length']) > 0;
    connection.bodySince = performance.now();
    connection.bodyBytesAtStart = Math.min(
      request.socket.bytesRead,
      connection.bytesAtStart + headBytes(request),
    );
    response.once('finish', () => {
      if (connection.response !== response) return;
      // Idle from here until the next request's first bytes.
      connection.responded = true;
      connection.since = performance.now();
      connection.bytesAtStart = connection.socket.bytesRead;
    });
  });

  if (limits.minRequestBodyRate > 0) {
    // Checked a few times per grace period, at most once a second: a body is cut at most a second late.
    const every = Math.min(1000, Math.max(50, Math.floor(limits.minRequestBodyRateGraceMs / 5)));
    const timer = setInterval(() => {
      const now = performance.now();
      shedInTurns([...open.values()].filter((connection) => tooSlowBody(connection, rule, now)));
    }, every);
    timer.unref();
    server.once('close', () => clearInterval(timer));
  }
}
