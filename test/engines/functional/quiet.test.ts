/**
 * Ending a load's observation early (performance/activity.ts): a page is only "provably quiet" when
 * nothing it has pending could run inside the quiet window. What could still run (a timer, a
 * response on its way, a child frame) keeps the observation open, so no long task the full window
 * would have seen is missed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../../src/engines/functional/index.js';
import { ACTIVITY_INIT, NetworkActivity, provablyQuiet } from '../../../src/engines/functional/performance/activity.js';
import { METRICS_INIT } from '../../../src/engines/functional/performance/metrics.js';

/** A long task that counts itself (window.ran), so a test sees which of the page's tasks had run. */
const BUSY = 'window.ran=0;function busy(){window.ran++;const t=performance.now();while(performance.now()-t<120){}}';
const page = (script: string, body = '<h1>Quiet page</h1><p>Text.</p>') =>
  `<!doctype html><html lang="en"><head><title>t</title></head><body>${body}<script>${BUSY};${script}</script></body></html>`;

const PAGES: Record<string, string> = {
  '/static': page(''),
  // A timer due inside the window: its long task must be seen before the page is called quiet.
  '/timer': page("addEventListener('load',()=>setTimeout(busy,600))"),
  // A chain: each task schedules the next one inside the window.
  '/chain': page("addEventListener('load',()=>setTimeout(()=>{busy();setTimeout(busy,400)},300))"),
  // A response on its way when the load ends, handled by a long task.
  '/fetch': page("addEventListener('load',()=>fetch('/slow').then((r)=>r.text()).then(busy))"),
  // A single-page app: it hydrates after a timer, then fetches its data and renders it.
  '/hydrate': page("addEventListener('load',()=>setTimeout(()=>fetch('/slow').then((r)=>r.text()).then(busy),800))"),
  // A clock ticking inside the window re-arms forever: not provable (the full window is waited for).
  '/clock': page('setInterval(()=>{document.title=String(Date.now())},500)'),
  // A poll far beyond the window does not keep the page open.
  '/poll': page('setInterval(()=>{},60000)'),
  // What runs in a child frame is not seen from the page: never provable.
  '/frame': page('', '<h1>Framed</h1><iframe title="child" src="/static"></iframe>'),
};

let server: Server;
let base: string;
let browser: Browser;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/slow') {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('late'), 700);
      return;
    }
    const html = PAGES[req.url ?? ''];
    if (!html) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(html);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: findChromium(), args: ['--headless', '--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
});

/** Loads `path` as the load gatherer does and asks whether it is provably quiet; the page's tasks that had run then. */
async function check(path: string): Promise<{ quiet: boolean; ran: number }> {
  const context = await browser.newContext();
  try {
    const p: Page = await context.newPage();
    await p.addInitScript(ACTIVITY_INIT);
    await p.addInitScript(METRICS_INIT);
    const net = NetworkActivity.watch(p);
    await p.goto(`${base}${path}`, { waitUntil: 'load' });
    // A generous limit: the verdict must not depend on how fast the machine is.
    const quiet = await provablyQuiet(p, net, 1000, 20_000);
    net.stop();
    return { quiet, ran: (await p.evaluate('window.ran')) as number };
  } finally {
    await context.close();
  }
}

describe('provably quiet pages (the load observation ends early only when nothing can run)', () => {
  it('a page with nothing pending is quiet', async () => {
    expect(await check('/static')).toEqual({ quiet: true, ran: 0 });
  });

  it('a timer due inside the window runs before the page is called quiet', async () => {
    expect(await check('/timer')).toEqual({ quiet: true, ran: 1 });
  });

  it('a chain of timers is followed to its end', async () => {
    expect(await check('/chain')).toEqual({ quiet: true, ran: 2 });
  });

  it('a response on its way keeps the page open until it was handled', async () => {
    expect(await check('/fetch')).toEqual({ quiet: true, ran: 1 });
  });

  it('an app that hydrates after a timer and then fetches its data is followed until the data is rendered', async () => {
    expect(await check('/hydrate')).toEqual({ quiet: true, ran: 1 });
  });

  it('an interval due inside the window is never provable', async () => {
    expect((await check('/clock')).quiet).toBe(false);
  });

  it('a timer due only after the window does not keep the page open', async () => {
    expect((await check('/poll')).quiet).toBe(true);
  });

  it('a page with a child frame is never provable (the full window is waited for)', async () => {
    expect((await check('/frame')).quiet).toBe(false);
  });
});
