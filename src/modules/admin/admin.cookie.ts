import { sessionCookieHeader } from '../../platform/http/cookies.js';
import { ADMIN_COOKIE } from '../../platform/http/merchant-auth.js';

/** The dashboard's session cookie, as every route that opens (or ends) a session sets it. */
export const adminSessionCookie = (token: string, expiresAt: Date, secure: boolean) =>
  sessionCookieHeader(ADMIN_COOKIE, token, { expiresAt, sameSite: 'Strict', secure });
