import type net from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  BlockedAddressError,
  type BlockedCategory,
  classifyAddress,
  createGuardedLookup,
  parseIPv6,
  resolveAllowedAddresses,
} from './ssrf-guard.js';

describe('classifyAddress', () => {
  const cases: [string, BlockedCategory | null][] = [
    // IPv4
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['172.32.0.1', null],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.1.2.3', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['169.254.169.254', 'metadata'],
    ['169.254.1.1', 'link_local'],
    ['168.63.129.16', 'metadata'],
    ['100.64.0.1', 'shared_address'],
    ['100.127.255.255', 'shared_address'],
    ['100.100.100.200', 'shared_address'],
    ['100.128.0.1', null],
    ['192.0.0.192', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['8.8.8.8', null],
    ['1.1.1.1', null],
    ['93.184.216.34', null],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf::1', 'link_local'],
    ['fec0::1', 'site_local'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001::1', 'reserved'], // Teredo
    ['100::1', 'reserved'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:8.8.8.8', null],
    ['::ffff:0:127.0.0.1', 'loopback'], // IPv4-translated
    ['::127.0.0.1', 'loopback'], // IPv4-compatible (deprecated)
    ['::8.8.8.8', 'reserved'],
    ['64:ff9b::127.0.0.1', 'loopback'], // NAT64
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::8.8.8.8', null],
    ['64:ff9b:1::8.8.8.8', 'reserved'], // local-use NAT64
    ['2002:7f00:1::', 'loopback'], // 6to4 of 127.0.0.1
    ['2002:c0a8:101::1', 'private'], // 6to4 of 192.168.1.1
    ['2002:808:808::1', null],
    ['3fff::1', 'documentation'],
    ['4000::1', 'reserved'], // outside 2000::/3
    ['2606:4700::1111', null],
    ['2001:4860:4860::8888', null],
    ['[2606:4700::1111]', null],
    // Not addresses
    ['example.com', 'invalid'],
    ['256.1.1.1', 'invalid'],
    ['1.2.3', 'invalid'],
    ['1::2::3', 'invalid'],
    ['', 'invalid'],
  ];

  it.each(cases)('%s → %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});

describe('parseIPv6', () => {
  it.each([
    ['::', '00000000000000000000000000000000'],
    ['::1', '00000000000000000000000000000001'],
    ['1:2:3:4:5:6:7:8', '00010002000300040005000600070008'],
    ['::ffff:1.2.3.4', '00000000000000000000ffff01020304'],
    ['1:2:3:4:5:6:1.2.3.4', '00010002000300040005000601020304'],
    ['fe80::', 'fe800000000000000000000000000000'],
  ])('%s', (text, hex) => {
    expect(Buffer.from(parseIPv6(text) ?? []).toString('hex')).toBe(hex);
  });

  it.each(['1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', '12345::', 'g::1', ':::', '1::2::3', '::1.2.3'])(
    'rejects %s',
    (text) => {
      expect(parseIPv6(text)).toBeUndefined();
    },
  );
});

describe('resolveAllowedAddresses', () => {
  const resolver = (map: Record<string, string[]>) => async (hostname: string) =>
    (map[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('refuses a host when any of its addresses is private', async () => {
    const resolve = resolver({ 'mixed.test': ['8.8.8.8', '10.0.0.5'] });
    const error = await resolveAllowedAddresses('mixed.test', { resolve }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlockedAddressError);
    expect((error as BlockedAddressError).address).toBe('10.0.0.5');
    expect((error as Error).message).toBe('mixed.test resolves to 10.0.0.5, a private address');
  });

  it('accepts public addresses, and anything when private URLs are allowed', async () => {
    const resolve = resolver({ 'public.test': ['8.8.8.8', '2606:4700::1111'], 'home.test': ['192.168.0.2'] });
    await expect(resolveAllowedAddresses('public.test', { resolve })).resolves.toHaveLength(2);
    await expect(resolveAllowedAddresses('home.test', { resolve, allowPrivateUrls: true })).resolves.toEqual([
      { address: '192.168.0.2', family: 4 },
    ]);
  });

  it('checks IP literals without resolving them', async () => {
    const resolve = async () => {
      throw new Error('must not be called');
    };
    await expect(resolveAllowedAddresses('[::1]', { resolve })).rejects.toThrow('::1 is a loopback address');
    await expect(resolveAllowedAddresses('8.8.4.4', { resolve })).resolves.toEqual([
      { address: '8.8.4.4', family: 4 },
    ]);
  });

  it('resolves localhost to a loopback address and refuses it (system resolver)', async () => {
    await expect(resolveAllowedAddresses('localhost', {})).rejects.toBeInstanceOf(BlockedAddressError);
  });
});

describe('createGuardedLookup', () => {
  const resolve = async () => [
    { address: '2606:4700::1111', family: 6 },
    { address: '1.1.1.1', family: 4 },
  ];
  const call = (lookup: net.LookupFunction, options: Parameters<net.LookupFunction>[1]) =>
    new Promise<{ error: Error | null; address: unknown; family?: number }>((done) =>
      lookup('public.test', options, (error, address, family) => done({ error, address, family })),
    );

  it('answers in the shape net.connect asks for', async () => {
    const lookup = createGuardedLookup({ resolve });
    expect(await call(lookup, { all: true })).toMatchObject({ error: null, address: await resolve() });
    expect(await call(lookup, {})).toMatchObject({ error: null, address: '2606:4700::1111', family: 6 });
    expect(await call(lookup, { family: 4 })).toMatchObject({ error: null, address: '1.1.1.1', family: 4 });
  });

  it('passes the guard error to the socket', async () => {
    const lookup = createGuardedLookup({ resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    const { error } = await call(lookup, { all: true });
    expect(error).toBeInstanceOf(BlockedAddressError);
  });
});
