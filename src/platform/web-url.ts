/**
 * `value` as an absolute http(s) URL a page may show or link to (its normalised href), or undefined:
 * another scheme (`javascript:`, `data:`, `ftp:`), a relative or unparsable value, or one carrying
 * credentials (`https://bank.example@evil.example/` reads as one site and opens another). The one
 * check for merchant-given addresses drawn into pages: logos, tracking links.
 */
export function webUrlOf(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value.trim());
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    if (url.username || url.password) return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}
