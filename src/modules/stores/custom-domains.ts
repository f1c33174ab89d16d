import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import type { Logger } from 'pino';
import { invalidRequest } from '../../platform/http/errors.js';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MESSAGE = 'must be a hostname such as shop.example.com (no scheme, port or path)';

/**
 * Public wildcard-DNS services: every name under them resolves to whatever address the name spells
 * (`127.0.0.1.nip.io` → 127.0.0.1), so nobody owns them and they cannot be a store's own domain.
 */
const WILDCARD_DNS = ['nip.io', 'sslip.io', 'xip.io', 'traefik.me', 'localtest.me', 'lvh.me', 'vcap.me'];

/** Browsers read a host whose last label is a number (decimal or 0x…) as an IPv4 address. */
const NUMERIC_LABEL = /^(?:\d+|0x[0-9a-f]*)$/;

/** A DNS name of at least two labels whose last is not numeric (so never an IP address). */
function isHostname(host: string): boolean {
  const labels = host.split('.');
  return (
    host.length <= 253 &&
    labels.length >= 2 &&
    labels.every((label) => LABEL.test(label)) &&
    !NUMERIC_LABEL.test(labels.at(-1) ?? '')
  );
}

/** `host` is `name` or a name under it. */
const isUnder = (host: string, name: string) => host === name || host.endsWith(`.${name}`);

/** Why a typed name cannot be a store's domain (a sentence after "custom_domain"), or undefined. */
function refusal(typed: string, host: string, publicHost: string | undefined): string | undefined {
  if (isIP(typed.replace(/^\[(.*)\]$/, '$1')) || NUMERIC_LABEL.test(typed.split('.').at(-1) ?? ''))
    return 'is an IP address; a custom domain is a name such as shop.example.com';
  if (!/^[\p{L}\p{N}.-]+$/u.test(typed)) return MESSAGE;
  if (isUnder(host, 'localhost')) return 'names this machine (localhost), which no shopper can reach';
  if (!host.includes('.') && LABEL.test(host))
    return 'is a single name; a custom domain has a dot, such as shop.example.com';
  if (!isHostname(host)) return MESSAGE;
  if (publicHost && isUnder(host, publicHost))
    return `is this server's own address or a name under it (${publicHost}); use a domain of your own`;
  const service = WILDCARD_DNS.find((name) => isUnder(host, name));
  if (service)
    return `is under ${service}, a public wildcard-DNS service that anyone can point anywhere; use a domain of your own`;
  return undefined;
}

/**
 * A custom domain as stored: trimmed, lower-cased, an internationalised name in its ASCII (punycode)
 * form, which is what browsers send in Host. Empty or null clears it. Refused (400 naming the
 * field, saying why): IP addresses, localhost and names under it, single names, PUBLIC_URL's host
 * and names under it (the shop dispatch would hand the platform's own names to one store), and
 * public wildcard-DNS services. `stored`, the store's current domain, is accepted as it is even when
 * an older version's rules let in what these refuse: the dashboard sends it back with every save.
 */
export function parseCustomDomain(
  input: string | null,
  rules: { publicHost?: string; stored?: string | null } = {},
): string | null {
  if (input === null || input.trim() === '') return null;
  const typed = input.trim().toLowerCase();
  // domainToASCII parses a URL's host (it would drop a path), so only a bare name reaches it.
  const host = /^[\p{L}\p{N}.-]+$/u.test(typed) ? domainToASCII(typed) : '';
  if (host !== '' && host === rules.stored) return host;
  const message = refusal(typed, host, rules.publicHost);
  if (message) throw invalidRequest(`custom_domain ${message}`, [{ field: 'custom_domain', message }]);
  return host;
}

/**
 * The hostname a Host header names: port stripped, lower-cased, a trailing dot dropped; undefined
 * when it cannot be a custom domain (an IP address, a single label, garbage), so such requests
 * never reach the database.
 */
export function hostOfHeader(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const host = header.trim().toLowerCase().replace(/:\d*$/, '').replace(/\.$/, '');
  return isHostname(host) ? host : undefined;
}

/**
 * The name a reverse proxy asks about before it requests a certificate (`?domain=`, Caddy's
 * on_demand_tls `ask`): any case, one trailing dot tolerated, an internationalised name in either
 * form; a port, an IP address, a single label or anything else that is no host name is refused (400
 * naming `domain`). Nothing is trimmed: the proxy sends the name exactly as the client did.
 */
export function parseDomainQuery(input: string): string {
  const typed = input.toLowerCase().replace(/\.$/, '');
  const host = /^[\p{L}\p{N}.-]+$/u.test(typed) ? domainToASCII(typed) : '';
  if (isHostname(host)) return host;
  const message =
    isIP(typed.replace(/^\[(.*)\]$/, '$1')) || NUMERIC_LABEL.test(typed.split('.').at(-1) ?? '')
      ? 'is an IP address; a custom domain is a name such as shop.example.com'
      : /:\d*$/.test(typed)
        ? 'has a port; ask with the host name alone, such as shop.example.com'
        : 'must be a host name such as shop.example.com';
  throw invalidRequest(`domain ${message}`, [{ field: 'domain', message }]);
}

/** How often the directory re-reads every custom domain, for changes made by other processes. */
export const DOMAIN_REFRESH_MS = 30_000;

/**
 * Every routed store's custom domain (see listCustomDomains), in memory, so the CSRF check
 * (synchronous, on every cookie-authenticated write) can ask "which origins does this store add?"
 * without a query, the shop dispatch which store a host is, and a reverse proxy whether to get a
 * certificate for a name (domain-check.routes.ts).
 * Loaded when the app is built, re-read every DOMAIN_REFRESH_MS, and updated at once for
 * a change this process makes; a change made by another process is seen within one refresh
 * (docs/decisions.md). It holds one short string per store that has a domain.
 */
export class CustomDomainDirectory {
  private byStore = new Map<string, { domain: string; slug: string }>();
  /** domain → slug: the shop dispatch (synchronous, before routing) asks it for every request. */
  private byDomain = new Map<string, string>();
  /** Bumped by every load and local change: a load that started earlier must not overwrite them. */
  private generation = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly load: () => Promise<{ id: string; slug: string; custom_domain: string | null }[]>,
    private readonly log?: Logger,
  ) {}

  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const rows = await this.load();
    if (generation !== this.generation) return;
    this.byStore = new Map(
      rows.flatMap((r) =>
        r.custom_domain ? [[r.id, { domain: r.custom_domain, slug: r.slug }] as const] : [],
      ),
    );
    this.byDomain = new Map([...this.byStore.values()].map(({ domain, slug }) => [domain, slug]));
  }

  /**
   * The first load, then a refresh every `intervalMs` until stop(). Not awaited: a database that is
   * down at start must not stop the server starting (requests answer 503 until it is back); until
   * the first load lands, only this process's own changes are known. A failed load keeps the list.
   */
  start(intervalMs = DOMAIN_REFRESH_MS): void {
    this.stop();
    const tick = () => {
      this.refresh().catch((error) => this.log?.warn({ err: error }, 'could not load custom domains'));
    };
    tick();
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** This process changed a store's domain: known at once, whatever a load in flight read before. */
  changed(storeId: string, slug: string, domain: string | null): void {
    this.generation++;
    const previous = this.byStore.get(storeId);
    if (previous) this.byDomain.delete(previous.domain);
    if (domain) {
      this.byStore.set(storeId, { domain, slug });
      this.byDomain.set(domain, slug);
    } else this.byStore.delete(storeId);
  }

  domainOf(storeId: string): string | undefined {
    return this.byStore.get(storeId)?.domain;
  }

  /** The slug of the active store whose custom domain this host name (lower-case, no port) is. */
  slugOfDomain(host: string): string | undefined {
    return this.byDomain.get(host);
  }
}
