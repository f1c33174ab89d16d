import type { IncomingMessage } from 'node:http';
import { newId } from '../ids.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/** Honours a caller's X-Request-Id when it is short and plain (for tracing across services). */
export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : newId();
}
