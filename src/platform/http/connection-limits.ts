import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';

export interface ConnectionLimits {
  /** Open connections of the process; node closes any beyond it as soon as it is accepted. */
  maxConnections: number;
  /** Open connections of one remote address; 0: no such limit (behind a load balancer). */
  maxConnectionsPerAddress: number;
}

/** Refusals are logged at most this often, with their count: a flood must not flood the log too. */
const LOG_EVERY_MS = 10_000;

/**
 * Caps the connections a process holds, in total and per client address, so that clients holding
 * connections open (slow or stalled requests, idle sockets) cannot use up the process's file
 * descriptors. A connection over a cap is closed at once, without an answer: writing one would be
 * work on behalf of the flood. Timeouts (REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS) bound how long each
 * admitted connection can be held.
 */
export function installConnectionLimits(
  server: Server,
  limits: ConnectionLimits,
  logger: FastifyBaseLogger,
): void {
  server.maxConnections = limits.maxConnections;

  const refused = { process: 0, address: 0 };
  let lastLog = 0;
  const noteRefusal = (kind: keyof typeof refused) => {
    refused[kind] += 1;
    const now = Date.now();
    if (now - lastLog < LOG_EVERY_MS) return;
    lastLog = now;
    logger.warn(
      {
        refusedOverProcessLimit: refused.process,
        refusedOverAddressLimit: refused.address,
        maxConnections: limits.maxConnections,
        maxConnectionsPerAddress: limits.maxConnectionsPerAddress,
      },
      'connections refused: over the connection limits',
    );
    refused.process = 0;
    refused.address = 0;
  };
  // Emitted by node for a connection it closed because maxConnections was reached.
  server.on('drop', () => noteRefusal('process'));

  const open = new Map<string, number>();
  if (limits.maxConnectionsPerAddress > 0) {
    server.on('connection', (socket: Socket) => {
      const address = socket.remoteAddress;
      if (address === undefined) return; // already closed by the peer
      const count = (open.get(address) ?? 0) + 1;
      if (count > limits.maxConnectionsPerAddress) {
        noteRefusal('address');
        socket.destroy();
        return;
      }
      open.set(address, count);
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1;
        if (left > 0) open.set(address, left);
        else open.delete(address);
      });
    });
  }
}
