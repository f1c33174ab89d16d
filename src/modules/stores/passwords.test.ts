import { randomBytes, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  DUMMY_HASH,
  hashPassword,
  needsRehash,
  PASSWORD_PARAMS,
  parsePasswordHash,
  verifyPassword,
} from './passwords.js';

/** A hash in the stored format, made here with Node's scrypt directly (the format of 2026-11). */
function legacyHash(password: string, N = 16384, r = 8, p = 1) {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32, { N, r, p, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

// Three full-strength scrypt hashes: seconds of CPU when the machine is busy with the other suites.
describe('password hashes', { timeout: 30_000 }, () => {
  it('hashes with the current parameters, OWASP guidance for scrypt (N=2^17, r=8, p=1)', async () => {
    expect(PASSWORD_PARAMS).toEqual({ N: 131072, r: 8, p: 1 });
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(needsRehash(hash)).toBe(false);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse batterY', hash)).toBe(false);
  });

  it('still verifies hashes made with weaker parameters, and says they need a new hash', async () => {
    const old = legacyHash('correct horse battery');
    expect(await verifyPassword('correct horse battery', old)).toBe(true);
    expect(await verifyPassword('wrong', old)).toBe(false);
    expect(needsRehash(old)).toBe(true);
  });

  it('parses the parameters carried by a hash', () => {
    const salt = Buffer.alloc(16, 1);
    const key = Buffer.alloc(32, 2);
    expect(
      parsePasswordHash(`scrypt$16384$8$1$${salt.toString('base64')}$${key.toString('base64')}`),
    ).toEqual({ N: 16384, r: 8, p: 1, salt, key });
  });

  it.each([
    [
      'N below current',
      'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      true,
    ],
    [
      'r below current',
      'scrypt$131072$4$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      true,
    ],
    [
      'current',
      'scrypt$131072$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      false,
    ],
    [
      'stronger N',
      'scrypt$262144$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      false,
    ],
    [
      'more parallel',
      'scrypt$131072$8$2$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      false,
    ],
  ])('needsRehash: %s', (_what, hash, expected) => {
    expect(needsRehash(hash)).toBe(expected);
  });

  it.each([
    [
      'another scheme',
      'argon2$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    ],
    [
      'N not a power of two',
      'scrypt$100000$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    ],
    [
      'N beyond what a login may cost',
      'scrypt$4194304$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    ],
    [
      'r not a number',
      'scrypt$16384$x$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    ],
    ['p zero', 'scrypt$16384$8$0$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='],
    ['no key', 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$'],
    ['too few fields', 'scrypt$16384$8$1'],
    ['empty', ''],
  ])('a malformed hash (%s) parses to nothing and verifies nothing', async (_what, hash) => {
    expect(parsePasswordHash(hash)).toBeUndefined();
    expect(await verifyPassword('anything', hash)).toBe(false);
  });

  // An unknown e-mail is checked against DUMMY_HASH: it must cost what a current hash costs.
  it('keeps the dummy hash at the current parameters', () => {
    expect(parsePasswordHash(DUMMY_HASH)).toMatchObject(PASSWORD_PARAMS);
    expect(needsRehash(DUMMY_HASH)).toBe(false);
  });
});
