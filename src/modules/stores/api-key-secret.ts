import { createHash, randomBytes } from 'node:crypto';

/** `sk_` + 32 random bytes in base64url (256 bits of entropy). */
export function generateApiKey(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

/**
 * A single SHA-256 is the right hash here: the key is 256 random bits, so there is nothing to
 * brute-force, and the lookup by hash stays an index probe.
 */
export function hashApiKey(raw: string): Buffer {
  return createHash('sha256').update(raw).digest();
}

/** What may be shown of a key after creation: enough to recognise it, not to use it. */
export function displayPrefix(raw: string): string {
  return raw.slice(0, 10);
}
