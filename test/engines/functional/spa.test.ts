import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineContext } from '../../../src/engines/engine.js';
import { Frontier, normalizePage } from '../../../src/engines/functional/crawl.js';
import { createFunctionalEngine } from '../../../src/engines/functional/index.js';
import { decodePng } from '../../../src/engines/functional/visual/png.js';
import { ROUTE_COLOURS, startSpaSite } from '../../fixtures/spa-site/server.js';
import { functionalContext, MemoryArtifacts, MemoryBaselines } from '../../helpers/functional-engine.js';

const engine = createFunctionalEngine();
let site: Awaited<ReturnType<typeof startSpaSite>>;
const artifacts = new MemoryArtifacts();

function crawl(path: string): EngineContext {
  return functionalContext({ url: `${site.url}${path}`, options: { max_pages: 10 } }, { artifacts, baselines: new MemoryBaselines() });
}

/** Page URLs of the results, relative to the site (path, query and hash route). */
const pagesOf = (out: Awaited<ReturnType<typeof engine.run>>) => out.functional!.visual.map((v) => v.page_url.slice(site.url.length));

/** How many pixels of the page's screenshot have the route's colour (its content block). */
async function pixelsOf(artifactId: string, [r, g, b]: [number, number, number]): Promise<number> {
  const img = decodePng((await artifacts.get('t1', artifactId))!.bytes);
  let n = 0;
  for (let i = 0; i < img.data.length; i += 4) if (img.data[i] === r && img.data[i + 1] === g && img.data[i + 2] === b) n++;
  return n;
}

beforeAll(async () => {
  site = await startSpaSite();
});
afterAll(async () => {
  await engine.close();
  site.server.close();
});

describe('hash routes in the crawl frontier', () => {
  it('keeps a route-shaped fragment only for a hash-routed app; anchors are always stripped', () => {
    expect(normalizePage('#/pricing', 'https://a.example/')).toBe('https://a.example/');
    expect(normalizePage('#/pricing', 'https://a.example/', true)).toBe('https://a.example/#/pricing');
    expect(normalizePage('#!/pricing', 'https://a.example/', true)).toBe('https://a.example/#!/pricing');
    expect(normalizePage('#section', 'https://a.example/', true)).toBe('https://a.example/');
  });

  it('does not queue again the route the start page moved itself to', () => {
    const frontier = new Frontier('https://a.example/', 10, () => false, true);
    frontier.offer('https://a.example/', 'https://a.example/', true);
    frontier.alias('https://a.example/#/home', 'https://a.example/', true);
    expect(frontier.offer('#/home', 'https://a.example/', false, true)).toBe(false);
    expect(frontier.offer('#/pricing', 'https://a.example/', false, true)).toBe(true);
    expect(frontier.accepted).toBe(2);
  });
});

describe('single-page applications', () => {
  it('crawls a history-API app: late-rendered links, a pushState-only nav element, each route captured once settled', async () => {
    const out = await engine.run(crawl('/shop/'));
    const pages = pagesOf(out);
    expect(pages[0]).toBe('/shop/');
    // /shop/home is where the start page moved itself: not visited twice.
    expect(pages.slice().sort()).toEqual(['/shop/', '/shop/about', '/shop/products', '/shop/team']);
    for (const v of out.functional!.visual) {
      const route = v.page_url.endsWith('/shop/') ? '/shop/home' : new URL(v.page_url).pathname;
      expect(await pixelsOf(v.baseline_artifact!, ROUTE_COLOURS[route]), route).toBeGreaterThan(50_000);
    }
    expect(new Set(out.functional!.visual.map((v) => v.page_key)).size).toBe(4);
  }, 120_000);

  it('crawls a hash-routed app: each hash route a page of its own, visited as start URL + fragment', async () => {
    const out = await engine.run(crawl('/hash/'));
    const pages = pagesOf(out);
    expect(pages[0]).toBe('/hash/');
    expect(pages.slice().sort()).toEqual(['/hash/', '/hash/#/contact', '/hash/#/pricing']);
    for (const v of out.functional!.visual) {
      const hash = new URL(v.page_url).hash || '#/home';
      expect(await pixelsOf(v.baseline_artifact!, ROUTE_COLOURS[hash]), hash).toBeGreaterThan(50_000);
    }
    // Distinct baselines per route, and task names that tell the routes apart.
    expect(out.functional!.visual.map((v) => v.page_key).sort()).toEqual(['/hash/', '/hash/#/contact', '/hash/#/pricing']);
    expect(
      out.tasks
        .filter((t) => t.name.startsWith('Visual'))
        .map((t) => t.name.split(': ')[1])
        .sort(),
    ).toEqual(['/hash/', '/hash/#/contact', '/hash/#/pricing']);
  }, 120_000);

  it("does not turn a server-rendered page's #anchors into pages, even one shaped like a hash route", async () => {
    const out = await engine.run(crawl('/plain'));
    expect(pagesOf(out).sort()).toEqual(['/plain', '/plain/next']);
  }, 60_000);
});
