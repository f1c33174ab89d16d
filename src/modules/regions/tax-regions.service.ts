import { inTransaction } from '../../platform/db/transaction.js';
import type { RequestContext } from '../../platform/http/context.js';
import { offsetOf, type PageRequest } from '../../platform/http/envelopes.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { type IfMatch, nextVersionTime, requireMatch } from '../../platform/http/etag.js';
import { recordIdempotentResource } from '../../platform/idempotency.js';
import { isUuid, newId } from '../../platform/ids.js';
import type { RegionsDeps } from './regions.deps.js';
import type { TaxRegionCreateInput, TaxRegionUpdateInput } from './regions.schemas.js';
import { taxRegionForMerchant } from './regions.serializers.js';
import { parsePlace, parseTaxRate } from './regions-input.js';
import * as repo from './tax-regions.repository.js';

/** The name of a tax region created without one. */
const DEFAULT_NAME = 'Tax';

/**
 * A second tax region for one place (country and region) violates the unique index, also when two
 * requests create it at once: 409 naming the place (the field is the region's, or the country's).
 */
function placeTaken(error: unknown, place: { country: string; region: string | null }): unknown {
  const e = error as { code?: string; constraint?: string };
  if (e?.code !== '23505' || e.constraint !== repo.PLACE_KEY) return error;
  const where = place.region ?? `${place.country} (the whole country)`;
  const message = `a tax region for ${where} already exists`;
  return new AppError(409, 'conflict', message, [{ field: place.region ? 'region' : 'country', message }]);
}

/** Tax regions through the merchant API (contract §12). */
export function createTaxRegionsService({ db, changes }: RegionsDeps) {
  async function requireTaxRegion(storeId: string, id: string) {
    const row = isUuid(id) ? await repo.findTaxRegion(db, storeId, id) : undefined;
    if (!row) throw notFound('tax region');
    return row;
  }

  return {
    async listTaxRegions(ctx: RequestContext, page: PageRequest, filter: { country?: string }) {
      const { rows, total } = await repo.listTaxRegions(
        db,
        ctx.storeId,
        { country: filter.country?.toUpperCase() },
        { offset: offsetOf(page), limit: page.limit },
      );
      return { data: rows.map(taxRegionForMerchant), total };
    },

    async getTaxRegion(ctx: RequestContext, id: string) {
      return taxRegionForMerchant(await requireTaxRegion(ctx.storeId, id));
    },

    async createTaxRegion(ctx: RequestContext, input: TaxRegionCreateInput) {
      const storeId = ctx.storeId;
      const place = parsePlace(input.country, input.region ?? null);
      const rate = parseTaxRate(input.rate);
      const now = new Date();
      try {
        const row = await inTransaction(db, async (tx) => {
          const inserted = await repo.insertTaxRegion(tx, {
            id: newId(),
            store_id: storeId,
            ...place,
            name: input.name?.trim() ?? DEFAULT_NAME,
            rate_millipercent: rate,
            shipping_taxable: input.shipping_taxable ?? false,
            created_at: now,
            updated_at: now,
          });
          changes.bump(storeId);
          await recordIdempotentResource(tx, ctx.idempotency, { type: 'tax_region', id: inserted.id });
          return inserted;
        });
        return taxRegionForMerchant(row);
      } catch (error) {
        throw placeTaken(error, place);
      }
    },

    /** A new country re-checks the region (kept unless given) against it. */
    async updateTaxRegion(ctx: RequestContext, id: string, input: TaxRegionUpdateInput, ifMatch?: IfMatch) {
      const storeId = ctx.storeId;
      if (!isUuid(id)) throw notFound('tax region');
      const rate = input.rate === undefined ? undefined : parseTaxRate(input.rate);
      let place: { country: string; region: string | null } | undefined;
      try {
        const row = await inTransaction(db, async (tx) => {
          const locked = await repo.lockTaxRegion(tx, storeId, id);
          if (!locked) throw notFound('tax region');
          requireMatch(ifMatch, locked);
          // The place is checked when it changes (a stored one stays editable whatever ISO 3166 says later).
          place =
            input.country === undefined && input.region === undefined
              ? { country: locked.country, region: locked.region }
              : parsePlace(
                  input.country ?? locked.country,
                  input.region === undefined ? locked.region : input.region,
                );
          const updated = await repo.updateTaxRegion(tx, storeId, id, {
            ...place,
            ...(input.name !== undefined ? { name: input.name.trim() } : {}),
            ...(rate !== undefined ? { rate_millipercent: rate } : {}),
            ...(input.shipping_taxable !== undefined ? { shipping_taxable: input.shipping_taxable } : {}),
            updated_at: nextVersionTime(locked.updated_at),
          });
          if (!updated) throw notFound('tax region');
          changes.bump(storeId);
          return updated;
        });
        return taxRegionForMerchant(row);
      } catch (error) {
        throw place ? placeTaken(error, place) : error;
      }
    },

    async removeTaxRegion(ctx: RequestContext, id: string) {
      if (!isUuid(id) || !(await repo.deleteTaxRegion(db, ctx.storeId, id))) throw notFound('tax region');
      changes.bump(ctx.storeId);
    },
  };
}
