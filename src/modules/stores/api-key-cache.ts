import type { RequestContext } from '../../platform/http/context.js';

interface Entry {
  ctx: RequestContext | undefined;
  expiresAt: number;
}

/**
 * Short-lived cache of key lookups, so a request costs no database round trip. A revocation made by
 * this process evicts at once; one made elsewhere is seen within the TTL (5 s by default).
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();
  /**
   * Ids of keys this process revoked. A lookup that began before the revocation can finish after it
   * with the key still active; caching that answer would undo the revocation for a whole TTL.
   */
  private readonly revoked = new Set<string>();

  constructor(
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 50_000,
  ) {}

  get(hashHex: string): Entry | undefined {
    const entry = this.entries.get(hashHex);
    if (entry && entry.expiresAt > Date.now()) return entry;
    if (entry) this.entries.delete(hashHex);
    return undefined;
  }

  set(hashHex: string, ctx: RequestContext | undefined): void {
    if (ctx && this.revoked.has(ctx.actor.id)) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(hashHex, { ctx, expiresAt: Date.now() + this.ttlMs });
  }

  evictKey(keyId: string): void {
    if (this.revoked.size >= this.maxEntries) this.revoked.clear();
    this.revoked.add(keyId);
    for (const [hash, entry] of this.entries) if (entry.ctx?.actor.id === keyId) this.entries.delete(hash);
  }
}
