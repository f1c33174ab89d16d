import { insufficientStorage, invalidRequest } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import { MediaError, MediaStorageError } from '../media/index.js';
import type { ParsedMedia } from './product-input.js';

/** What the catalogue needs of the media pipeline: re-host images, undo on failure. */
export interface ImageRehoster {
  rehostImages(
    urls: string[],
  ): Promise<{ images: { sourceUrl: string; url: string }[]; discard(): Promise<void> }>;
}

/**
 * A product's media around its writes: images are re-hosted before the transaction, and the caller
 * discards them when the write fails.
 */
export function createProductMedia(media: ImageRehoster) {
  return {
    /** Downloads and re-hosts the images when asked; videos always keep their URL. */
    async resolveMedia(items: ParsedMedia[], download: boolean) {
      const urls = download
        ? [...new Set(items.filter((m) => m.mediaType === 'image').map((m) => m.url))]
        : [];
      if (urls.length === 0) return { items, discard: async () => {} };
      let hosted: Awaited<ReturnType<ImageRehoster['rehostImages']>>;
      try {
        hosted = await media.rehostImages(urls);
      } catch (error) {
        if (error instanceof MediaError) {
          throw invalidRequest(error.message, [
            { field: 'images', message: `${error.reason}: ${error.url}` },
          ]);
        }
        if (error instanceof MediaStorageError) {
          const state = error.reason === 'full' ? 'full' : 'not writable';
          throw insufficientStorage(
            `The media storage is ${state}: the images could not be stored and nothing was saved. Retry once an operator has fixed the storage`,
          );
        }
        throw error;
      }
      const byUrl = new Map(hosted.images.map((i) => [i.sourceUrl, i.url]));
      return {
        items: items.map((m) =>
          m.mediaType === 'image' ? { ...m, sourceUrl: m.url, url: byUrl.get(m.url) ?? m.url } : m,
        ),
        discard: hosted.discard,
      };
    },
  };
}

/** The media rows of a product, from its (resolved) media list. */
export function mediaRows(
  storeId: string,
  productId: string,
  items: (ParsedMedia & { sourceUrl?: string })[],
) {
  return items.map((m) => ({
    id: newId(),
    store_id: storeId,
    product_id: productId,
    media_type: m.mediaType,
    url: m.url,
    source_url: m.sourceUrl ?? null,
    alt: m.alt,
    is_primary: m.mediaType === 'image' && m.isPrimary,
    position: m.position,
  }));
}
