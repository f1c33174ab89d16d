import { describe, expect, it } from 'vitest';
import { APP_CONFIG_LIMIT, checkAppConfig } from './app-config';

/** A JSON object whose compact text is exactly `bytes` bytes long. */
function objectOfBytes(bytes: number, char = 'x'): string {
  const overhead = '{"a":""}'.length;
  const charBytes = new TextEncoder().encode(char).length;
  return JSON.stringify({ a: char.repeat((bytes - overhead) / charBytes) });
}

describe('checkAppConfig', () => {
  it.each([
    ['{}', {}],
    [
      '{ "theme": { "mode": "dark" }, "features": { "wishlist": true } }',
      { theme: { mode: 'dark' }, features: { wishlist: true } },
    ],
    ['  {"list": [1, 2, 3]}\n', { list: [1, 2, 3] }],
  ])('accepts %s', (text, value) => {
    const check = checkAppConfig(text);
    expect(check).toEqual({ ok: true, value, bytes: JSON.stringify(value).length });
  });

  it.each(['[]', '[1, 2]', 'null', '42', '"text"', 'true'])('refuses %s: not an object', (text) => {
    expect(checkAppConfig(text)).toEqual({
      ok: false,
      message: 'The app config must be a JSON object ({ … }), not an array or a single value.',
    });
  });

  it.each(['', '{', '{"a": }', "{'a': 1}", 'wishlist: true'])('refuses %j: not JSON', (text) => {
    const check = checkAppConfig(text);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).toMatch(/^Not valid JSON/);
  });

  it('says where the JSON breaks, as line and column', () => {
    const check = checkAppConfig('{\n  "a": 1,\n}');
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message).toContain('(line 3, column 1)');
  });

  it('counts the compact UTF-8 size against 64 KiB', () => {
    expect(APP_CONFIG_LIMIT).toBe(65536);
    expect(checkAppConfig(objectOfBytes(65536))).toMatchObject({ ok: true, bytes: 65536 });
    expect(checkAppConfig(objectOfBytes(65538, 'é'))).toEqual({
      ok: false,
      message: 'The app config is 65 KiB; at most 64 KiB is accepted.',
    });
    // Indentation does not count: the API stores the compact form.
    const indented = JSON.stringify(JSON.parse(objectOfBytes(65536)), null, 8);
    expect(indented.length).toBeGreaterThan(65536);
    expect(checkAppConfig(indented).ok).toBe(true);
  });
});
