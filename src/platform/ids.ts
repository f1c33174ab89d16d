import { uuidv7 } from 'uuidv7';

/** Time-ordered UUID v7: ids sort by creation, which keeps B-tree inserts at the right edge. */
export function newId(): string {
  return uuidv7();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
