/** The stores module's input rules: what a store's settings and an API key's scopes accept. */
import { invalidRequest } from '../../platform/http/errors.js';
import { isScope, SCOPES, type Scope } from '../../platform/http/scopes.js';
import { isCurrencyCode } from '../../platform/money.js';
import { webUrlOf } from '../../platform/web-url.js';

export function isTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** `eur` → `EUR`; anything that is not an ISO 4217 code is 400 naming `currency`. */
export function currencyCode(input: string): string {
  const code = input.trim().toUpperCase();
  if (!isCurrencyCode(code)) {
    const message = 'must be an ISO 4217 currency code, such as USD or EUR';
    throw invalidRequest(`currency ${message}`, [{ field: 'currency', message }]);
  }
  return code;
}

/** A contact e-mail as stored (trimmed; null or empty clears it); else 400 naming `contact_email`. */
export function contactEmail(input: string | null): string | null {
  const email = input?.trim();
  if (!email) return null;
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
    const message = 'must be an e-mail address such as orders@example.com';
    throw invalidRequest(`contact_email ${message}`, [{ field: 'contact_email', message }]);
  }
  return email;
}

/**
 * A logo as stored: an absolute http(s) URL (the store's own media are served on one, under
 * PUBLIC_URL/media/ or S3_PUBLIC_URL), normalised; empty or null clears it. Anything else is 400
 * naming `logo`: it is drawn into every page of the shop and shared as og:image.
 */
export function parseLogo(input: string | null): string | null {
  if (input === null || input.trim() === '') return null;
  const url = webUrlOf(input);
  if (!url) {
    const message = 'must be an http(s) URL such as https://example.com/logo.png (no credentials)';
    throw invalidRequest(`logo ${message}`, [{ field: 'logo', message }]);
  }
  return url;
}

export function parseScopes(input: string[] | 'all'): Scope[] {
  if (input === 'all') return [...SCOPES];
  const unknown = input.filter((s) => !isScope(s));
  if (unknown.length > 0) throw invalidRequest(`unknown scope(s): ${unknown.join(', ')}`);
  if (input.length === 0) throw invalidRequest('at least one scope is required');
  return [...new Set(input)] as Scope[];
}
