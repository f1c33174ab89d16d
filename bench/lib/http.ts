import type { AddressInfo } from 'node:net';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A port that was free a moment ago, for processes that take their port from the environment. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Listens on a free port of 127.0.0.1 and returns the base URL. */
export async function listenOnFreePort(server: FastifyInstance): Promise<string> {
  await server.listen({ port: 0, host: '127.0.0.1' });
  const { port } = server.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

export interface JsonResponse {
  status: number;
  body: unknown;
}

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<JsonResponse> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, body };
}

/**
 * Polls `url` until it answers 200 (every `intervalMs`), failing when `gaveUp()` says the process
 * behind it is gone or after `timeoutMs`.
 */
export async function waitFor200(
  url: string,
  options: { timeoutMs: number; intervalMs?: number; gaveUp?: () => string | undefined },
): Promise<void> {
  const deadline = performance.now() + options.timeoutMs;
  while (performance.now() < deadline) {
    const reason = options.gaveUp?.();
    if (reason) throw new Error(`${url} never answered: ${reason}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {}
    await sleep(options.intervalMs ?? 20);
  }
  throw new Error(`${url} did not answer 200 within ${options.timeoutMs} ms`);
}
