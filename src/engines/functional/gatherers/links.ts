/** The links gatherer: the rendered page's links (`a[href]`, `area[href]`, not `download`), for the crawl. */
import type { Gatherer } from '../types.js';

export const linksGatherer: Gatherer<'links'> = {
  artifact: 'links',
  skip: ({ scan }) => !scan.crawling(),
  async gather({ page, url, isStart, scan }) {
    const links = (await page.evaluate(
      `Array.from(document.querySelectorAll('a[href],area[href]')).filter((e) => !e.hasAttribute('download')).map((e) => e.href)`,
    )) as string[];
    scan.found(links, page.url() || url, isStart);
    return links;
  },
};
