import type { Insertable } from 'kysely';
import type { Tx } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { offsetOf, type PageRequest } from '../../platform/http/envelopes.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { type IfMatch, nextVersionTime, requireMatch } from '../../platform/http/etag.js';
import { recordIdempotentResource } from '../../platform/idempotency.js';
import { isUuid, newId } from '../../platform/ids.js';
import type { RegionsDeps } from './regions.deps.js';
import type { ZoneCreateInput, ZoneUpdateInput } from './regions.schemas.js';
import { zoneForMerchant } from './regions.serializers.js';
import type { ShippingRatesTable } from './regions.tables.js';
import { invalid, parseCountries, parseRate, type RateValues, REST_OF_WORLD } from './regions-input.js';
import * as repo from './zones.repository.js';

/** A rate of a request, parsed: the id it keeps (none: a new rate) and its values. */
interface ParsedRate {
  id?: string;
  values: RateValues;
}

/** Shipping zones and their rates through the merchant API (contract §12). */
export function createZonesService({ db, changes, decimalsOf }: RegionsDeps) {
  async function requireZone(storeId: string, id: string) {
    const row = isUuid(id) ? await repo.findZone(db, storeId, id) : undefined;
    if (!row) throw notFound('shipping zone');
    return row;
  }

  async function zoneView(storeId: string, id: string) {
    const [row, decimals] = await Promise.all([requireZone(storeId, id), decimalsOf(storeId)]);
    return zoneForMerchant(row, decimals);
  }

  /**
   * Gives the zone its countries, or 409 naming each country another zone of the store holds (the
   * primary key decides, also between two requests at once: see claimCountries).
   */
  async function claim(tx: Tx, storeId: string, zoneId: string, countries: string[]): Promise<void> {
    const claimed = await repo.claimCountries(tx, storeId, zoneId, countries);
    const taken = countries.filter((c) => !claimed.has(c));
    if (taken.length === 0) return;
    const holders = new Map((await repo.holdersOf(tx, storeId, taken)).map((h) => [h.country, h.name]));
    const details = taken.map((country) => {
      const zone = holders.has(country) ? `the zone "${holders.get(country)}"` : 'another zone';
      const message =
        country === REST_OF_WORLD
          ? `"*" (the rest of the world) is already ${zone}; a store has one such zone`
          : `${country} is already in ${zone}; a country stands in one zone of a store`;
      return { field: `countries.${countries.indexOf(country)}`, message };
    });
    throw new AppError(409, 'conflict', (details[0] as { message: string }).message, details);
  }

  /**
   * The rows of a replaced list of rates, in the order given. A rate given with its id keeps it
   * (and its creation time); an id that is not a rate of this zone, of this store, is a 400: a rate
   * of another zone or store can never be adopted.
   */
  async function rateRows(
    tx: Tx,
    storeId: string,
    zoneId: string,
    rates: ParsedRate[],
    now: Date,
  ): Promise<Insertable<ShippingRatesTable>[]> {
    const existing = new Map((await repo.zoneRates(tx, storeId, zoneId)).map((r) => [r.id, r.created_at]));
    const seen = new Set<string>();
    return rates.map((rate, position) => {
      if (rate.id !== undefined) {
        if (!existing.has(rate.id)) throw invalid(`rates.${position}.id`, 'is not a rate of this zone');
        if (seen.has(rate.id)) throw invalid(`rates.${position}.id`, 'is listed twice');
        seen.add(rate.id);
      }
      return {
        id: rate.id ?? newId(),
        store_id: storeId,
        zone_id: zoneId,
        position,
        ...rate.values,
        created_at: (rate.id && existing.get(rate.id)) || now,
        updated_at: now,
      };
    });
  }

  return {
    async listZones(ctx: RequestContext, page: PageRequest) {
      const [{ rows, total }, decimals] = await Promise.all([
        repo.listZones(db, ctx.storeId, { offset: offsetOf(page), limit: page.limit }),
        decimalsOf(ctx.storeId),
      ]);
      return { data: rows.map((r) => zoneForMerchant(r, decimals)), total };
    },

    getZone: (ctx: RequestContext, id: string) => zoneView(ctx.storeId, id),

    async createZone(ctx: RequestContext, input: ZoneCreateInput) {
      const storeId = ctx.storeId;
      const decimals = await decimalsOf(storeId);
      const countries = parseCountries(input.countries);
      const rates = (input.rates ?? []).map((r, i) => ({ values: parseRate(r, i, decimals) }));
      const id = newId();
      const now = new Date();
      await inTransaction(db, async (tx) => {
        await repo.insertZone(tx, {
          id,
          store_id: storeId,
          name: input.name.trim(),
          created_at: now,
          updated_at: now,
        });
        await claim(tx, storeId, id, countries);
        await repo.replaceRates(tx, storeId, id, await rateRows(tx, storeId, id, rates, now));
        changes.bump(storeId);
        await recordIdempotentResource(tx, ctx.idempotency, { type: 'shipping_zone', id });
      });
      return zoneView(storeId, id);
    },

    /** `countries` and `rates` replace the lists; the zone's row lock makes edits take turns. */
    async updateZone(ctx: RequestContext, id: string, input: ZoneUpdateInput, ifMatch?: IfMatch) {
      const storeId = ctx.storeId;
      if (!isUuid(id)) throw notFound('shipping zone');
      const decimals = await decimalsOf(storeId);
      const countries = input.countries && parseCountries(input.countries);
      const rates = input.rates?.map((r, i) => ({ id: r.id, values: parseRate(r, i, decimals) }));
      await inTransaction(db, async (tx) => {
        const locked = await repo.lockZone(tx, storeId, id);
        if (!locked) throw notFound('shipping zone');
        requireMatch(ifMatch, locked);
        const now = nextVersionTime(locked.updated_at);
        await repo.updateZone(tx, storeId, id, {
          ...(input.name !== undefined ? { name: input.name.trim() } : {}),
          updated_at: now,
        });
        if (countries) await claim(tx, storeId, id, countries);
        if (rates) await repo.replaceRates(tx, storeId, id, await rateRows(tx, storeId, id, rates, now));
        changes.bump(storeId);
      });
      return zoneView(storeId, id);
    },

    async removeZone(ctx: RequestContext, id: string) {
      if (!isUuid(id) || !(await repo.deleteZone(db, ctx.storeId, id))) throw notFound('shipping zone');
      changes.bump(ctx.storeId);
    },
  };
}
