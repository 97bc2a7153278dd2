/**
 * A minimal cookie-keeping HTTP client that follows redirects across origins, as a browser would
 * (cookies per host and path, HttpOnly honoured by never exposing them to pages: there are none here).
 */
export class CookieJar {
  private readonly cookies = new Map<string, Map<string, { value: string; path: string }>>();

  store(url: URL, setCookie: string[]): void {
    const jar = this.cookies.get(url.host) ?? new Map<string, { value: string; path: string }>();
    this.cookies.set(url.host, jar);
    for (const line of setCookie) {
      const [pair, ...attributes] = line.split(';').map((s) => s.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const path = attributes.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now()));
      if (expired || value === '') jar.delete(name);
      else jar.set(name, { value, path });
    }
  }

  header(url: URL): string | undefined {
    const jar = this.cookies.get(url.host);
    if (!jar) return undefined;
    const pairs = [...jar].filter(([, c]) => url.pathname.startsWith(c.path)).map(([name, c]) => `${name}=${c.value}`);
    return pairs.length ? pairs.join('; ') : undefined;
  }

  get(host: string, name: string): string | undefined {
    return this.cookies.get(host)?.get(name)?.value;
  }

  set(host: string, name: string, value: string): void {
    const jar = this.cookies.get(host) ?? new Map<string, { value: string; path: string }>();
    this.cookies.set(host, jar);
    jar.set(name, { value, path: '/' });
  }
}

export interface Hop {
  url: string;
  status: number;
  location?: string;
  setCookie: string[];
  body: string;
}

/** Requests `url` and follows redirects until a non-redirect answer or `stop(url)` is true for the next hop. */
export async function browse(
  jar: CookieJar,
  start: string,
  options: { stop?: (next: URL) => boolean; maxHops?: number; init?: RequestInit } = {},
): Promise<{ hops: Hop[]; last: Hop }> {
  const hops: Hop[] = [];
  let url = new URL(start);
  let init: RequestInit | undefined = options.init;
  for (let i = 0; i < (options.maxHops ?? 20); i += 1) {
    const headers = new Headers(init?.headers);
    const cookie = jar.header(url);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    const setCookie = res.headers.getSetCookie();
    jar.store(url, setCookie);
    const hop: Hop = { url: url.href, status: res.status, location: res.headers.get('location') ?? undefined, setCookie, body: await res.text() };
    hops.push(hop);
    if (res.status < 300 || res.status >= 400 || !hop.location) return { hops, last: hop };
    const next = new URL(hop.location, url);
    if (options.stop?.(next)) return { hops, last: hop };
    url = next;
    init = undefined;
  }
  throw new Error(`too many redirects from ${start}`);
}
