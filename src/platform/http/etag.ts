import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { invalidRequest, preconditionFailed } from './errors.js';

/**
 * Optimistic concurrency for edited resources (contract §2): `GET` and every write answer an
 * `ETag`; a `PATCH`/`PUT` with `If-Match` is applied only if the resource is still that version,
 * compared under the row lock of the writing transaction, else 412 `precondition_failed`.
 *
 * The tag is strong (If-Match uses strong comparison, RFC 9110 §13.1.1) and names the version of
 * what the merchant edits: the resource's id and the instant of its last write (`updated_at`,
 * which every edit sets, a variant-only edit of a product included; see nextVersionTime).
 */
export function etagOf(resource: { id: string; updated_at: Date | string }): string {
  return `"${resource.id}.${new Date(resource.updated_at).getTime().toString(36)}"`;
}

/**
 * The tag of a resource with no version column (the mobile app config, a JSON document): a hash
 * of it as stored, so that it changes exactly when the document does.
 */
export function contentEtag(content: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(content)).digest('base64url').slice(0, 27)}"`;
}

/** `*` (any current version) or the list of tags the client holds. */
export type IfMatch = '*' | string[];

// One entity-tag of a list: optional weakness prefix, then a quoted opaque tag (RFC 9110 §8.8.3).
const ENTITY_TAG = /\s*((?:W\/)?"[\x21\x23-\x7e\x80-\xff]*")\s*(,|$)/y;

/** The request's If-Match, or undefined without one; a malformed value is 400 (it names no version). */
export function ifMatchOf(request: FastifyRequest): IfMatch | undefined {
  const header = request.headers['if-match'];
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return '*';
  const tags: string[] = [];
  ENTITY_TAG.lastIndex = 0;
  while (ENTITY_TAG.lastIndex < value.length) {
    const match = ENTITY_TAG.exec(value);
    if (!match) break;
    tags.push(match[1] as string);
    if (match[2] === '') break;
  }
  if (!tags.length || ENTITY_TAG.lastIndex < value.length) {
    throw invalidRequest('If-Match must be * or a list of quoted ETags such as "…"', [
      { field: 'If-Match', message: 'must be * or quoted ETags' },
    ]);
  }
  return tags;
}

/**
 * Throws 412 unless the current version satisfies If-Match. Call it on the row read `FOR UPDATE`
 * in the transaction that writes, so that of two writes holding the same tag only one passes.
 */
export function requireMatch(ifMatch: IfMatch | undefined, current: { id: string; updated_at: Date }): void {
  requireTag(ifMatch, etagOf(current));
}

/** requireMatch for a tag computed otherwise (contentEtag). */
export function requireTag(ifMatch: IfMatch | undefined, tag: string): void {
  if (ifMatch === undefined || ifMatch === '*') return;
  // Strong comparison: a weak tag never matches.
  if (!ifMatch.includes(tag)) {
    throw preconditionFailed();
  }
}

/**
 * The `updated_at` of a write: now, but always after the version it replaces, so that two writes
 * within one millisecond still give two ETags.
 */
export function nextVersionTime(previous: Date): Date {
  const now = Date.now();
  return new Date(Math.max(now, previous.getTime() + 1));
}

/** Sets the ETag of the resource a route answers with. */
export function withEtag<T extends { id: string; updated_at: string }>(reply: FastifyReply, resource: T): T {
  reply.header('etag', etagOf(resource));
  return resource;
}
