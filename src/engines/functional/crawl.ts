/**
 * Which pages a functional scan visits: `options.pages`, else a same-origin crawl from the target
 * URL (links in each rendered page plus sitemap.xml), bounded by `options.max_pages`, with
 * `options.exclude` applied with the one pattern rule of domain/exclude.ts.
 */
import { request } from 'playwright-core';
import { isHashRoute } from '../../domain/artifacts.js';
import { compileExclude } from '../../domain/exclude.js';

/** File types a crawl never queues: they are not pages. */
const NOT_A_PAGE =
  /\.(png|jpe?g|gif|webp|avif|svg|ico|bmp|tiff?|pdf|zip|gz|tgz|bz2|xz|7z|rar|tar|dmg|exe|msi|apk|iso|mp[34]|m4[av]|mov|avi|mkv|webm|ogg|wav|flac|woff2?|ttf|otf|eot|css|js|mjs|map|json|xml|txt|csv|xlsx?|docx?|pptx?|rss|atom)$/i;

/** `options.exclude` as a URL predicate (docs/scans.md): a page matches by its URL, its path or "GET <path>". */
export function excludeMatcher(patterns: string[]): (url: string) => boolean {
  const excluded = compileExclude(patterns);
  return (url) => excluded(url, `GET ${new URL(url).pathname}`);
}

/**
 * Canonical form used to de-duplicate pages: no fragment, except a hash route (`#/pricing`) when
 * `hashRoutes` (the page is a hash-routed app): then the route is a page of its own.
 */
export function normalizePage(raw: string, base: string, hashRoutes = false): string | undefined {
  let u: URL;
  try {
    u = new URL(raw, base);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  if (!(hashRoutes && isHashRoute(u.hash))) u.hash = '';
  return u.href;
}

/**
 * The crawl frontier. `offer` accepts a URL when it is same-origin, looks like a page, is not
 * excluded, is new, and fewer than `max` pages have been accepted; accepted URLs are handed out
 * by `next()` in the order they were accepted (start URL, sitemap, then links breadth-first as
 * pages finish).
 */
export class Frontier {
  private readonly seen = new Set<string>();
  private readonly aliases = new Set<string>();
  private readonly queue: string[] = [];
  private readonly ordered: string[] = [];
  private readonly origins: Set<string>;
  readonly excluded: string[] = [];
  constructor(
    start: string,
    readonly max: number,
    private readonly isExcluded: (url: string) => boolean,
    readonly crawl: boolean,
  ) {
    this.origins = new Set([new URL(start).origin]);
  }
  get accepted(): number {
    return this.seen.size;
  }
  get full(): boolean {
    return this.seen.size >= this.max;
  }
  /** Also treat `url`'s origin as the site's (e.g. the start page redirected http -> https). */
  addOrigin(url: string): void {
    try {
      this.origins.add(new URL(url).origin);
    } catch {
      /* ignore */
    }
  }
  /**
   * `hashRoutes`: `raw` comes from a hash-routed app, so its hash route is kept. Explicit pages
   * (options.pages, the start URL) keep theirs too.
   */
  offer(raw: string, base: string, explicit = false, hashRoutes = false): boolean {
    if (this.full) return false;
    const url = normalizePage(raw, base, hashRoutes || explicit);
    if (!url || this.seen.has(url) || this.aliases.has(url)) return false;
    const u = new URL(url);
    if (!explicit) {
      if (!this.origins.has(u.origin)) return false;
      if (NOT_A_PAGE.test(u.pathname)) return false;
    }
    if (this.isExcluded(url)) {
      if (!this.excluded.includes(url)) this.excluded.push(url);
      return false;
    }
    this.seen.add(url);
    this.queue.push(url);
    this.ordered.push(url);
    return true;
  }
  /**
   * `url` is a page already visited under another URL (the app moved the start page to its route
   * with pushState or a hash, e.g. `/` -> `/#/home`): links to it are not queued again.
   */
  alias(raw: string, base: string, hashRoutes: boolean): void {
    const url = normalizePage(raw, base, hashRoutes);
    if (url && !this.seen.has(url)) this.aliases.add(url);
  }
  /** Position in which `url` was accepted (for stable result order). */
  order(url: string): number {
    return this.ordered.indexOf(url);
  }
  next(): string | undefined {
    return this.queue.shift();
  }
  get pending(): number {
    return this.queue.length;
  }
}

/** `<loc>` entries of a sitemap or sitemap index. */
export function parseSitemap(xml: string): { pages: string[]; sitemaps: string[] } {
  const locs = (block: string) => [...block.matchAll(/<loc>\s*(?:<!\[CDATA\[)?\s*([^<\]\s]+)\s*(?:\]\]>)?\s*<\/loc>/gi)].map((m) => decodeXml(m[1]));
  if (/<sitemapindex[\s>]/i.test(xml)) return { pages: [], sitemaps: locs(xml) };
  return { pages: locs(xml), sitemaps: [] };
}

function decodeXml(s: string): string {
  return s
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'");
}

/**
 * Page URLs from `<origin>/sitemap.xml` (and up to 5 sitemaps it indexes, same origin only),
 * fetched with the target's auth headers. Missing or unreadable sitemaps give [].
 */
export async function fetchSitemap(
  start: string,
  opts: { headers: Record<string, string>; proxy?: { server: string }; timeoutMs: number; signal: AbortSignal; limit: number },
): Promise<string[]> {
  const origin = new URL(start).origin;
  const api = await request.newContext({ extraHTTPHeaders: opts.headers, proxy: opts.proxy, timeout: opts.timeoutMs, ignoreHTTPSErrors: false });
  const onAbort = () => void api.dispose().catch(() => undefined);
  opts.signal.addEventListener('abort', onAbort, { once: true });
  const out: string[] = [];
  try {
    const todo = [`${origin}/sitemap.xml`];
    let fetched = 0;
    while (todo.length && fetched < 6 && out.length < opts.limit * 4) {
      const url = todo.shift()!;
      fetched++;
      let text: string;
      try {
        const res = await api.get(url, { maxRedirects: 3, failOnStatusCode: false });
        if (!res.ok()) continue;
        const body = await res.body();
        if (body.length > 10 * 1024 * 1024) continue;
        text = body.toString('utf8');
      } catch {
        if (opts.signal.aborted) break;
        continue;
      }
      const { pages, sitemaps } = parseSitemap(text);
      out.push(...pages);
      for (const s of sitemaps) if (normalizePage(s, origin)?.startsWith(`${origin}/`)) todo.push(s);
    }
  } finally {
    opts.signal.removeEventListener('abort', onAbort);
    await api.dispose().catch(() => undefined);
  }
  return out;
}
