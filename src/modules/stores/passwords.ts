import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: object,
) => Promise<Buffer>;

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** OWASP's guidance for scrypt (2^17, 8, 1): about 128 MiB and 100–300 ms per hash. */
export const PASSWORD_PARAMS: ScryptParams = { N: 131072, r: 8, p: 1 };
/** Stored hashes beyond these bounds are refused rather than computed: one login must not cost a GiB. */
const MAX_PARAMS: ScryptParams = { N: 2 ** 20, r: 32, p: 16 };
const MAX_MEMORY = 512 * 1024 * 1024;
const KEY_LENGTH = 32;

/** What OpenSSL allocates for scrypt (128·r·(N+2) + 128·r·p bytes), with room to spare. */
const memoryFor = ({ N, r, p }: ScryptParams) => 128 * r * (N + 2) + 128 * r * p + 1024 * 1024;

function format(params: ScryptParams, salt: Buffer, key: Buffer) {
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * A valid hash of no password at the current parameters: checked when the e-mail is unknown, so an
 * unknown e-mail costs what a known one does.
 */
export const DUMMY_HASH = format(PASSWORD_PARAMS, Buffer.alloc(16), Buffer.alloc(KEY_LENGTH));

/** `scrypt$N$r$p$salt$key` (base64), or undefined when malformed or beyond what a login may cost. */
export function parsePasswordHash(
  stored: string,
): (ScryptParams & { salt: Buffer; key: Buffer }) | undefined {
  const [scheme, n, r, p, salt, key, ...rest] = stored.split('$');
  if (scheme !== 'scrypt' || rest.length || !salt || !key) return undefined;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const withinBounds = (name: keyof ScryptParams) =>
    Number.isInteger(params[name]) && params[name] >= 1 && params[name] <= MAX_PARAMS[name];
  if (!withinBounds('N') || !withinBounds('r') || !withinBounds('p')) return undefined;
  if (params.N < 2 || (params.N & (params.N - 1)) !== 0 || memoryFor(params) > MAX_MEMORY) return undefined;
  const saltBytes = Buffer.from(salt, 'base64');
  const keyBytes = Buffer.from(key, 'base64');
  if (!saltBytes.length || !keyBytes.length) return undefined;
  return { ...params, salt: saltBytes, key: keyBytes };
}

/** True when the hash was made with any parameter below the current ones (re-hash at the next login). */
export function needsRehash(stored: string): boolean {
  const parsed = parsePasswordHash(stored);
  if (!parsed) return false;
  return parsed.N < PASSWORD_PARAMS.N || parsed.r < PASSWORD_PARAMS.r || parsed.p < PASSWORD_PARAMS.p;
}

/** scrypt with a random salt; the parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, KEY_LENGTH, {
    ...PASSWORD_PARAMS,
    maxmem: memoryFor(PASSWORD_PARAMS),
  });
  return format(PASSWORD_PARAMS, salt, key);
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parsePasswordHash(stored);
  if (!parsed) return false;
  const { N, r, p, salt, key } = parsed;
  const actual = await scryptAsync(password, salt, key.length, { N, r, p, maxmem: memoryFor(parsed) });
  return timingSafeEqual(actual, key);
}
