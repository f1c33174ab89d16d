import type { FastifyInstance } from 'fastify';

/** Query parameters whose values may be credentials: their values are never logged. */
const SECRET_PARAMETER = /token|key|secret|password|passwd|code|session|signature|sig|auth|credential/i;

/** The URL as logged: path and query, with the values of secret-looking parameters redacted. */
export function loggableUrl(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const query = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0) return pair;
      let name = pair.slice(0, equals);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // an undecodable name is judged as it is
      }
      return SECRET_PARAMETER.test(name) ? `${pair.slice(0, equals)}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, mark)}?${query}`;
}

/**
 * One line per request at `info` once it is answered: method, URL (secret query values redacted),
 * status, duration and, through the request's logger, its id. At `debug` also a line when a request
 * arrives (to see requests that hang). Fastify's own pair of lines ("incoming request", "request
 * completed", with unredacted URLs) is turned off in createHttpServer.
 */
export function installRequestLog(server: FastifyInstance): void {
  server.addHook('onRequest', async (request) => {
    if (request.log.level === 'debug' || request.log.level === 'trace')
      request.log.debug({ method: request.method, url: loggableUrl(request.url) }, 'incoming request');
  });
  server.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: loggableUrl(request.url),
        statusCode: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  });
}
