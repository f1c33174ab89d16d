import dns from 'node:dns';
import net from 'node:net';

/**
 * The SSRF guard: decides whether an outbound connection may go to an address. Everything that is not
 * a global unicast address is refused (private, loopback, link-local, unique-local, CGNAT, multicast,
 * reserved, documentation, cloud metadata), including IPv6 forms that embed an IPv4 address
 * (IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`), which are
 * judged by the IPv4 address they carry.
 *
 * The check runs inside the socket's own `lookup` (see `createGuardedLookup`), so the address that is
 * checked is the address that is connected to: a host name cannot resolve to a public address for the
 * check and to a private one for the connection (DNS rebinding).
 */

export type BlockedCategory =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared_address'
  | 'link_local'
  | 'unique_local'
  | 'site_local'
  | 'metadata'
  | 'multicast'
  | 'documentation'
  | 'benchmarking'
  | 'reserved'
  | 'invalid';

interface Range {
  bytes: number[];
  prefix: number;
  category: BlockedCategory;
}

function v4Range(cidr: string, category: BlockedCategory): Range {
  const [ip, prefix] = cidr.split('/') as [string, string];
  const bytes = parseIPv4(ip);
  if (!bytes) throw new Error(`bad range ${cidr}`);
  return { bytes, prefix: Number(prefix), category };
}

function v6Range(cidr: string, category: BlockedCategory): Range {
  const [ip, prefix] = cidr.split('/') as [string, string];
  const bytes = parseIPv6(ip);
  if (!bytes) throw new Error(`bad range ${cidr}`);
  return { bytes, prefix: Number(prefix), category };
}

/** Checked in order: the first match decides (more specific ranges first). */
const IPV4_BLOCKED: Range[] = [
  v4Range('169.254.169.254/32', 'metadata'), // AWS, GCP, Azure, OpenStack… instance metadata
  v4Range('168.63.129.16/32', 'metadata'), // Azure wire server
  v4Range('0.0.0.0/8', 'unspecified'),
  v4Range('10.0.0.0/8', 'private'),
  v4Range('100.64.0.0/10', 'shared_address'), // CGNAT (also Alibaba's metadata 100.100.100.200)
  v4Range('127.0.0.0/8', 'loopback'),
  v4Range('169.254.0.0/16', 'link_local'),
  v4Range('172.16.0.0/12', 'private'),
  v4Range('192.0.0.0/24', 'reserved'), // IETF protocol assignments (Oracle metadata 192.0.0.192)
  v4Range('192.0.2.0/24', 'documentation'),
  v4Range('192.88.99.0/24', 'reserved'), // 6to4 relay anycast (deprecated)
  v4Range('192.168.0.0/16', 'private'),
  v4Range('198.18.0.0/15', 'benchmarking'),
  v4Range('198.51.100.0/24', 'documentation'),
  v4Range('203.0.113.0/24', 'documentation'),
  v4Range('224.0.0.0/4', 'multicast'),
  v4Range('240.0.0.0/4', 'reserved'), // includes 255.255.255.255
];

const IPV6_BLOCKED: Range[] = [
  v6Range('fd00:ec2::254/128', 'metadata'), // AWS instance metadata over IPv6
  v6Range('64:ff9b:1::/48', 'reserved'), // local-use NAT64: translates to whatever the network chooses
  v6Range('100::/64', 'reserved'), // discard-only
  v6Range('2001::/23', 'reserved'), // IETF protocol assignments, Teredo, ORCHID, benchmarking
  v6Range('2001:db8::/32', 'documentation'),
  v6Range('3fff::/20', 'documentation'),
  v6Range('5f00::/16', 'reserved'), // SRv6 SIDs
  v6Range('fc00::/7', 'unique_local'),
  v6Range('fe80::/10', 'link_local'),
  v6Range('fec0::/10', 'site_local'),
  v6Range('ff00::/8', 'multicast'),
];

const GLOBAL_UNICAST_V6 = v6Range('2000::/3', 'reserved');
const IPV4_MAPPED = v6Range('::ffff:0:0/96', 'reserved');
const IPV4_TRANSLATED = v6Range('::ffff:0:0:0/96', 'reserved');
const IPV4_COMPATIBLE = v6Range('::/96', 'reserved');
const NAT64_WELL_KNOWN = v6Range('64:ff9b::/96', 'reserved');
const SIX_TO_FOUR = v6Range('2002::/16', 'reserved');

function inRange(bytes: number[], range: Range): boolean {
  if (bytes.length !== range.bytes.length) return false;
  let bits = range.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] as number) & mask) !== ((range.bytes[i] as number) & mask)) return false;
  }
  return true;
}

/** Dotted-quad decimal only (what resolvers return and what the URL parser normalises to). */
export function parseIPv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    bytes.push(n);
  }
  return bytes;
}

/** Any textual IPv6 form (compressed, embedded dotted IPv4, zone id) → 16 bytes. */
export function parseIPv6(text: string): number[] | undefined {
  let s = text;
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.includes('.')) {
    const v4 = parseIPv4(s.slice(lastColon + 1));
    if (!v4) return undefined;
    tail = [((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number)];
    // Keep the groups before the dotted part ("::ffff:" → "::ffff", "::" stays "::").
    const before = s.slice(0, lastColon + 1);
    s = before.endsWith('::') ? before : before.slice(0, -1);
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const parseGroups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const groups: number[] = [];
    for (const g of part.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      groups.push(Number.parseInt(g, 16));
    }
    return groups;
  };
  const head = parseGroups(halves[0] as string);
  const rest = halves.length === 2 ? parseGroups(halves[1] as string) : [];
  if (!head || !rest) return undefined;
  const explicit = head.length + rest.length + tail.length;
  let groups: number[];
  if (halves.length === 2) {
    if (explicit > 7) return undefined;
    groups = [...head, ...new Array<number>(8 - explicit).fill(0), ...rest, ...tail];
  } else {
    if (explicit !== 8) return undefined;
    groups = [...head, ...tail];
  }
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

function classifyV4(bytes: number[]): BlockedCategory | null {
  for (const range of IPV4_BLOCKED) if (inRange(bytes, range)) return range.category;
  return null;
}

function classifyV6(bytes: number[]): BlockedCategory | null {
  if (bytes.every((b) => b === 0)) return 'unspecified';
  if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) return 'loopback';
  // Forms that carry an IPv4 address are judged by that address.
  if (inRange(bytes, IPV4_MAPPED) || inRange(bytes, IPV4_TRANSLATED) || inRange(bytes, NAT64_WELL_KNOWN)) {
    return classifyV4(bytes.slice(12));
  }
  if (inRange(bytes, IPV4_COMPATIBLE)) return classifyV4(bytes.slice(12)) ?? 'reserved'; // deprecated form
  if (inRange(bytes, SIX_TO_FOUR)) return classifyV4(bytes.slice(2, 6));
  for (const range of IPV6_BLOCKED) if (inRange(bytes, range)) return range.category;
  if (!inRange(bytes, GLOBAL_UNICAST_V6)) return 'reserved';
  return null;
}

/**
 * Why an address may not be connected to, or `null` for a public (global unicast) address.
 * Text that is not an IP address is `invalid`.
 */
export function classifyAddress(address: string): BlockedCategory | null {
  const v4 = parseIPv4(address);
  if (v4) return classifyV4(v4);
  const v6 = parseIPv6(address);
  if (v6) return classifyV6(v6);
  return 'invalid';
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all of its addresses (injectable for tests). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = async (hostname) =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

export interface AddressGuardOptions {
  /** Let connections go to private, loopback… addresses (development and tests). */
  allowPrivateUrls?: boolean;
  /** Resolves host names; default `dns.lookup` with all addresses. */
  resolve?: HostResolver;
  /** Decides which addresses are refused; default `classifyAddress`. Tests only. */
  classify?: (address: string) => BlockedCategory | null;
}

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly category: BlockedCategory,
  ) {
    const label = category.replaceAll('_', '-');
    super(
      hostname === address
        ? `${address} is a ${label} address`
        : `${hostname} resolves to ${address}, a ${label} address`,
    );
    this.name = 'BlockedAddressError';
  }
}

function stripBrackets(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Throws BlockedAddressError if an IP literal host is not allowed; host names are checked at connect. */
export function assertAllowedLiteral(hostname: string, options: AddressGuardOptions): void {
  const host = stripBrackets(hostname);
  if (options.allowPrivateUrls || net.isIP(host) === 0) return;
  const category = (options.classify ?? classifyAddress)(host);
  if (category) throw new BlockedAddressError(host, host, category);
}

/**
 * Resolves a host (name or IP literal) and checks every address; refuses the host if any of its
 * addresses is not allowed (an attacker controlling DNS can otherwise mix in a private one).
 */
export async function resolveAllowedAddresses(
  hostname: string,
  options: AddressGuardOptions,
): Promise<ResolvedAddress[]> {
  const host = stripBrackets(hostname);
  const family = net.isIP(host);
  const addresses =
    family !== 0 ? [{ address: host, family }] : await (options.resolve ?? systemResolver)(host);
  if (addresses.length === 0) {
    throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND', hostname: host });
  }
  if (!options.allowPrivateUrls) {
    const classify = options.classify ?? classifyAddress;
    for (const { address } of addresses) {
      const category = classify(address);
      if (category) throw new BlockedAddressError(host, address, category);
    }
  }
  return addresses;
}

/**
 * A `lookup` for `net.connect` / `tls.connect` (undici's `connect.lookup`) that resolves through the
 * guard: the socket connects only to addresses that passed the check.
 */
export function createGuardedLookup(options: AddressGuardOptions): net.LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolveAllowedAddresses(hostname, options).then(
      (all) => {
        const wanted = lookupOptions.family;
        const family = wanted === 'IPv4' ? 4 : wanted === 'IPv6' ? 6 : wanted;
        const addresses = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
        const first = addresses[0];
        if (!first) {
          const error = Object.assign(new Error(`${hostname} has no IPv${family} address`), {
            code: 'ENOTFOUND',
          });
          callback(error, '', 0);
        } else if (lookupOptions.all) {
          callback(null, addresses);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
