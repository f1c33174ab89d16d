import { describe, expect, it } from 'vitest';
import { readCookie, sessionCookieHeader } from './cookies.js';

describe('readCookie', () => {
  it.each([
    ['no header', undefined, undefined],
    ['the cookie alone', 'emporium_session=cs_abc', 'cs_abc'],
    ['among others, spaces trimmed', 'a=1;  emporium_session = cs_abc ; b=2', 'cs_abc'],
    ['percent-encoded', 'emporium_session=cs_a%2Fb', 'cs_a/b'],
    ['another name only', 'emporium_sessionx=cs_abc; xemporium_session=cs_def', undefined],
    ['the first of duplicate names', 'emporium_session=cs_first; emporium_session=cs_second', 'cs_first'],
    ['an empty value', 'emporium_session=', ''],
    // Not valid percent-encoding: returned as sent, never thrown (a thrown URIError was a 500).
    ['a truncated escape', 'emporium_session=%E0%A4%A', '%E0%A4%A'],
    ['a lone percent sign', 'emporium_session=%', '%'],
    ['a percent sign before non-hex', 'emporium_session=cs_%ZZ', 'cs_%ZZ'],
    ['a lone surrogate', 'emporium_session=%ED%A0%80', '%ED%A0%80'],
    ['a malformed cookie of another name', 'other=%E0%A4%A; emporium_session=cs_abc', 'cs_abc'],
  ])('%s', (_what, header, expected) => {
    expect(readCookie(header, 'emporium_session')).toBe(expected);
  });
});

describe('sessionCookieHeader', () => {
  it('writes HttpOnly, Path=/, the SameSite given, Max-Age in seconds and Secure only over https', () => {
    const expiresAt = new Date(Date.now() + 3600_000 + 500);
    expect(
      sessionCookieHeader('emporium_admin', 'as_x', { expiresAt, sameSite: 'Strict', secure: false }),
    ).toBe('emporium_admin=as_x; Path=/; HttpOnly; SameSite=Strict; Max-Age=3600');
    expect(
      sessionCookieHeader('emporium_session', 'cs_x', { expiresAt, sameSite: 'Lax', secure: true }),
    ).toBe('emporium_session=cs_x; Path=/; HttpOnly; SameSite=Lax; Max-Age=3600; Secure');
    expect(
      sessionCookieHeader('emporium_session', '', { expiresAt: new Date(0), sameSite: 'Lax', secure: false }),
    ).toBe('emporium_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
  });
});
