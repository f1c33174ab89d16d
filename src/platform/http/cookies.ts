/**
 * Reads one cookie from the Cookie header (no dependency for a couple of names); the first of
 * duplicate names wins. A value that is not valid percent-encoding is returned as sent, as the
 * `cookie` package does: it is a client's garbage, not a server error, and no session matches it.
 */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name)
      return decodeCookieValue(part.slice(index + 1).trim());
  }
  return undefined;
}

function decodeCookieValue(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A session cookie: HttpOnly, Path=/, the given SameSite, Secure over https; expired = cleared. */
export function sessionCookieHeader(
  name: string,
  token: string,
  options: { expiresAt: Date; sameSite: 'Lax' | 'Strict'; secure: boolean },
): string {
  const maxAge = Math.max(0, Math.floor((options.expiresAt.getTime() - Date.now()) / 1000));
  return `${name}=${token}; Path=/; HttpOnly; SameSite=${options.sameSite}; Max-Age=${maxAge}${options.secure ? '; Secure' : ''}`;
}
