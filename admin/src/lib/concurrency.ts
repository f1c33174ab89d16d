import { ApiError, type Versioned, versionedRequest } from '../api/client';

/**
 * Edits that do not undo other people's (issue 30, item 1). A form keeps the version (ETag) of what
 * it loaded and sends only the fields the merchant changed, with If-Match. When the server answers
 * 412 (someone saved meanwhile), the latest version is read: if the others changed none of the
 * fields this save changes, the save is sent again on top of it (their change and this one both
 * stay); otherwise nothing is saved and the form says which fields changed (StaleEdit).
 */

type Payload = Record<string, unknown>;

/** The fields of `after` whose value differs from `before`'s (compared as JSON). */
export function changedFields(before: Payload, after: Payload): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
}

export function pick(payload: Payload, fields: string[]): Payload {
  return Object.fromEntries(fields.filter((f) => f in payload).map((f) => [f, payload[f]]));
}

/** Someone else saved fields this save also changes: nothing was saved. */
export class StaleEdit<T> extends Error {
  constructor(
    readonly fields: string[],
    readonly latest: Versioned<{ data: T }>,
  ) {
    super(`Someone else changed ${fields.join(', ')} since you opened it`);
    this.name = 'StaleEdit';
  }
}

export async function saveChanges<T>(options: {
  path: string;
  method?: 'PATCH' | 'PUT';
  loaded: Versioned<{ data: T }>;
  /** The request body the form would send for a resource (its loaded state or the merchant's). */
  payloadOf: (data: T) => Payload;
  payload: Payload;
}): Promise<Versioned<{ data: T }>> {
  const { path, loaded, payloadOf, payload } = options;
  const method = options.method ?? 'PATCH';
  const before = payloadOf(loaded.body.data);
  const mine = changedFields(before, payload);
  // Nothing changed: nothing to send (an empty PATCH is refused, and would only bump the version).
  if (!mine.length) return loaded;
  const body = pick(payload, mine);
  try {
    return await versionedRequest<{ data: T }>(method, path, body, { ifMatch: loaded.etag });
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 412)) throw error;
  }
  const latest = await versionedRequest<{ data: T }>('GET', path);
  const theirs = changedFields(before, payloadOf(latest.body.data));
  const overlap = theirs.filter((field) => mine.includes(field));
  if (overlap.length) throw new StaleEdit(overlap, latest);
  return versionedRequest<{ data: T }>(method, path, body, { ifMatch: latest.etag });
}

/**
 * A PUT that replaces a whole document (the mobile app config, the Stripe keys): no part of it can
 * be sent alone, so it goes as it is, with If-Match. On 412 nothing is saved and nothing is sent
 * again (the whole document saved over another person's would undo theirs): the latest version is
 * read past the browser's cache, and StaleEdit names the fields of `describe` in which it differs
 * from what the form loaded (none when what changed is not shown, such as a secret).
 */
export async function replaceDocument<T>(options: {
  path: string;
  loaded: Versioned<{ data: T }>;
  /** What the merchant sees of a version, by field: what a refusal names. */
  describe: (data: T) => Payload;
  body: unknown;
}): Promise<Versioned<{ data: T }>> {
  const { path, loaded, describe, body } = options;
  try {
    return await versionedRequest<{ data: T }>('PUT', path, body, { ifMatch: loaded.etag });
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 412)) throw error;
  }
  const latest = await versionedRequest<{ data: T }>('GET', path, undefined, { cache: 'no-cache' });
  throw new StaleEdit(changedFields(describe(loaded.body.data), describe(latest.body.data)), latest);
}
