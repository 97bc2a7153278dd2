/**
 * The links gatherer, for the crawl: the rendered page's links (`a[href]`, `area[href]`, not
 * `download`), router elements that are not links (`data-href`, Angular's `routerLink`), and the
 * URLs the page's app navigated to itself (routes.ts). Hash routes count as pages only on a
 * hash-routed app; elsewhere a fragment is an anchor.
 */
import type { Gatherer } from '../types.js';
import { READ_ROUTES } from './routes.js';

interface PageRoutes {
  links: string[];
  routes: string[];
  hashRoutes: boolean;
  url: string;
}

export const linksGatherer: Gatherer<'links'> = {
  artifact: 'links',
  skip: ({ scan }) => !scan.crawling(),
  async gather({ page, url, isStart, scan }) {
    const found = (await page.evaluate(READ_ROUTES)) as PageRoutes;
    const links = [...found.links, ...found.routes];
    const base = found.url || page.url() || url;
    scan.found(links, base, isStart, { hashRoutes: found.hashRoutes, movedByApp: found.routes.includes(base) });
    return links;
  },
};
