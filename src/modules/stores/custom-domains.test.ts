import { describe, expect, it } from 'vitest';
import {
  CustomDomainDirectory,
  hostOfHeader,
  parseCustomDomain,
  parseDomainQuery,
} from './custom-domains.js';

describe('parseCustomDomain', () => {
  it.each([
    ['shop.example.com', 'shop.example.com'],
    ['  Shop.Example.COM ', 'shop.example.com'],
    ['a-b.c-d.example', 'a-b.c-d.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['Bücher.example', 'xn--bcher-kva.example'],
    ['shop.example.123abc', 'shop.example.123abc'],
  ])('%s → %s', (input, stored) => {
    expect(parseCustomDomain(input)).toBe(stored);
  });

  it('null, empty or blank clears it', () => {
    expect(parseCustomDomain(null)).toBeNull();
    expect(parseCustomDomain('')).toBeNull();
    expect(parseCustomDomain('   ')).toBeNull();
  });

  it.each([
    'http://shop.example.com',
    'shop.example.com:443',
    'shop.example.com/',
    'shop.example.com?x',
    'user@shop.example.com',
    'shop example.com',
    'example',
    '10.0.0.1',
    '[::1]',
    'shop.example.com.',
    'a.-b.example',
    `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.example`,
  ])('refuses %s with a 400 naming the field', (input) => {
    expect(() => parseCustomDomain(input)).toThrow(
      expect.objectContaining({
        statusCode: 400,
        details: [expect.objectContaining({ field: 'custom_domain' })],
      }),
    );
  });

  it("refuses the deployment's own host and names under it, in any case", () => {
    const rules = { publicHost: 'emporium.example.com' };
    for (const name of ['Emporium.Example.com', 'www.emporium.example.com', 'a.b.emporium.example.com'])
      expect(() => parseCustomDomain(name, rules)).toThrow(/this server/);
    expect(parseCustomDomain('shop.example.com', rules)).toBe('shop.example.com');
    expect(parseCustomDomain('xemporium.example.com', rules)).toBe('xemporium.example.com');
  });

  it.each([
    ['localhost', /localhost/],
    ['a.localhost', /localhost/],
    ['::1', /IP address/],
    ['[::1]', /IP address/],
    ['10.0.0.1', /IP address/],
    ['shop.0x7f', /IP address/],
    ['shop', /single name/],
    ['127.0.0.1.nip.io', /nip\.io/],
    ['sslip.io', /sslip\.io/],
    ['shop.example.com:8080', /must be a hostname/],
  ])('says why %s is refused', (input, reason) => {
    expect(() => parseCustomDomain(input, { publicHost: 'emporium.example.com' })).toThrow(reason);
  });

  it('accepts the store’s current domain as it is, whatever newer rules say', () => {
    expect(
      parseCustomDomain('WWW.emporium.example.com', {
        publicHost: 'emporium.example.com',
        stored: 'www.emporium.example.com',
      }),
    ).toBe('www.emporium.example.com');
    expect(() => parseCustomDomain('lvh.me', { stored: 'www.emporium.example.com' })).toThrow(/lvh\.me/);
  });
});

describe('hostOfHeader', () => {
  it.each([
    ['shop.example.com', 'shop.example.com'],
    ['SHOP.example.com:8080', 'shop.example.com'],
    ['shop.example.com.', 'shop.example.com'],
    ['shop.example.com.:443', 'shop.example.com'],
    ['localhost:3000', undefined],
    ['127.0.0.1:3000', undefined],
    ['[::1]:3000', undefined],
    ['', undefined],
    [undefined, undefined],
    ['evil.example/path', undefined],
  ])('%s → %s', (header, host) => {
    expect(hostOfHeader(header)).toBe(host);
  });
});

describe('CustomDomainDirectory', () => {
  /** A load the test finishes when it wants, answering the rows it is given then. */
  function controlledLoads() {
    type Row = { id: string; slug: string; custom_domain: string | null };
    const pending: ((rows: Row[]) => void)[] = [];
    const load = () => new Promise<Row[]>((r) => pending.push(r));
    return { load, pending };
  }

  it('answers from the last load', async () => {
    const { load, pending } = controlledLoads();
    const directory = new CustomDomainDirectory(load);
    const refreshed = directory.refresh();
    pending[0]?.([
      { id: 's1', slug: 'one', custom_domain: 'one.example' },
      { id: 's2', slug: 'two', custom_domain: null },
    ]);
    await refreshed;
    expect(directory.domainOf('s1')).toBe('one.example');
    expect(directory.slugOfDomain('one.example')).toBe('one');
    expect(directory.domainOf('s2')).toBeUndefined();
  });

  it("a load that started before this process's change cannot undo it", async () => {
    const { load, pending } = controlledLoads();
    const directory = new CustomDomainDirectory(load);
    const stale = directory.refresh();
    directory.changed('s1', 'one', 'new.example');
    pending[0]?.([{ id: 's1', slug: 'one', custom_domain: 'old.example' }]);
    await stale;
    expect(directory.domainOf('s1')).toBe('new.example');
    expect(directory.slugOfDomain('new.example')).toBe('one');
    expect(directory.slugOfDomain('old.example')).toBeUndefined();
    directory.changed('s1', 'one', 'newer.example');
    expect(directory.slugOfDomain('new.example')).toBeUndefined();
    directory.changed('s1', 'one', null);
    expect(directory.domainOf('s1')).toBeUndefined();
    expect(directory.slugOfDomain('newer.example')).toBeUndefined();
  });

  it('an older load finishing after a newer one is dropped', async () => {
    const { load, pending } = controlledLoads();
    const directory = new CustomDomainDirectory(load);
    const older = directory.refresh();
    const newer = directory.refresh();
    pending[1]?.([{ id: 's1', slug: 'one', custom_domain: 'newer.example' }]);
    await newer;
    pending[0]?.([{ id: 's1', slug: 'one', custom_domain: 'older.example' }]);
    await older;
    expect(directory.domainOf('s1')).toBe('newer.example');
  });

  it('a failed refresh keeps the last list; start refreshes on its interval until stop', async () => {
    let calls = 0;
    const directory = new CustomDomainDirectory(async () => {
      calls++;
      if (calls === 2) throw new Error('database down');
      return [{ id: 's1', slug: 'one', custom_domain: `v${calls}.example` }];
    });
    directory.start(20);
    await expect.poll(() => calls).toBeGreaterThanOrEqual(3);
    directory.stop();
    const stopped = calls;
    await new Promise((r) => setTimeout(r, 80));
    expect(calls).toBe(stopped);
    expect(directory.domainOf('s1')).toBe(`v${stopped}.example`);
  });
});

describe('parseDomainQuery', () => {
  it.each([
    ['shop.example.com', 'shop.example.com'],
    ['SHOP.Example.COM', 'shop.example.com'],
    ['shop.example.com.', 'shop.example.com'],
    ['Bücher.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example.', 'xn--bcher-kva.example'],
  ])('%s → %s', (input, name) => {
    expect(parseDomainQuery(input)).toBe(name);
  });

  it.each([
    ['shop.example.com:443', /port/],
    ['shop.example.com:', /port/],
    ['10.0.0.1', /IP address/],
    ['[::1]', /IP address/],
    ['::1', /IP address/],
    ['shop.0x7f', /IP address/],
    ['shop', /host name/],
    ['', /host name/],
    ['.', /host name/],
    ['shop.example.com..', /host name/],
    [' shop.example.com', /host name/],
    ['shop.example.com/', /host name/],
    ['*.example.com', /host name/],
    ['user@shop.example.com', /host name/],
  ])('refuses %s with a 400 naming domain', (input, reason) => {
    expect(() => parseDomainQuery(input)).toThrow(
      expect.objectContaining({
        statusCode: 400,
        details: [{ field: 'domain', message: expect.stringMatching(reason) }],
      }),
    );
  });
});
