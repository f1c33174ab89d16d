import type { App } from '../../src/app.js';

/** The origin the shop's form posts name (PUBLIC_URL's in the test apps). */
export const SHOP_ORIGIN = 'http://localhost:3000';

interface StoredCookie {
  name: string;
  value: string;
  path: string;
}

/**
 * A shopper's browser over `app.server.inject`: a cookie jar that keeps what the shop sets (by name
 * and path, sent only under their path, dropped at Max-Age=0) and form posts as a browser sends them
 * (urlencoded, with the page's Origin).
 */
export function shopBrowser(app: App, options: { origin?: string } = {}) {
  const jar = new Map<string, StoredCookie>();
  const origin = options.origin ?? SHOP_ORIGIN;

  function remember(setCookie: string | string[] | undefined) {
    for (const header of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const [pair = '', ...attributes] = header.split(';').map((p) => p.trim());
      const index = pair.indexOf('=');
      const name = pair.slice(0, index);
      const value = pair.slice(index + 1);
      const attr = (key: string) =>
        attributes.find((a) => a.toLowerCase().startsWith(`${key.toLowerCase()}=`))?.split('=')[1];
      const path = attr('Path') ?? '/';
      const key = `${name} ${path}`;
      if (attr('Max-Age') === '0') jar.delete(key);
      else jar.set(key, { name, value, path });
    }
  }

  const cookieHeader = (url: string) => {
    const path = url.split('?')[0] ?? '/';
    const sent = [...jar.values()].filter((c) => path.startsWith(c.path) || `${path}/` === c.path);
    return sent.length > 0 ? { cookie: sent.map((c) => `${c.name}=${c.value}`).join('; ') } : {};
  };

  async function request(method: 'GET' | 'POST', url: string, form?: Record<string, string>) {
    const res = await app.server.inject({
      method,
      url,
      headers: {
        ...cookieHeader(url),
        ...(form ? { origin, 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { payload: new URLSearchParams(form).toString() } : {}),
    });
    remember(res.headers['set-cookie']);
    return res;
  }

  return {
    get: (url: string) => request('GET', url),
    post: (url: string, form: Record<string, string> = {}) => request('POST', url, form),
    /** The value of a cookie the shop set (any path), or undefined. */
    cookie: (name: string) => [...jar.values()].find((c) => c.name === name)?.value,
    setCookie: (name: string, value: string, path: string) =>
      jar.set(`${name} ${path}`, { name, value, path }),
    jar,
  };
}

export type ShopBrowser = ReturnType<typeof shopBrowser>;

/** The visible text of an HTML page, tags dropped and entities of the renderer decoded, spaces collapsed. */
export function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<!-- -->/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ')
    .trim();
}
