/**
 * Deterministic full-page captures: animations, transitions and carets frozen, web fonts and
 * images awaited, animated images (GIF, APNG, animated WebP) replaced by their first frame,
 * videos paused at the start, `options.mask` painted over. A capture is accepted when two
 * consecutive screenshots agree, or from one screenshot when the page provably did not change
 * while it was taken (still.ts: no script of the page's ran, no request, nothing that moves by
 * itself); otherwise it is retried, up to MAX_CAPTURES screenshots. A page that never gives two
 * equal ones is unstable: the areas that kept changing are reported with the element to mask for each.
 */
import { type CDPSession, errors, type Page } from 'playwright-core';
import { NetworkActivity } from '../performance/activity.js';
import type { Rect } from './diff.js';
import { changedAreas, mergeRects, withSelectors, type MovingArea } from './motion.js';
import { StillnessProof } from './still.js';
import type { TextSnapshot } from './text-snapshot.js';

/** Screenshots taken at most per page (so up to MAX_CAPTURES - 2 retries after the first pair). */
export const MAX_CAPTURES = 5;

/**
 * Vigil's freezing styles, adopted by the document as a constructed stylesheet: a page's
 * Content-Security-Policy governs <style> elements and style attributes, not constructed sheets,
 * so a strict `style-src` neither refuses them nor has to be bypassed (the page's own scripts and
 * styles stay under its policy).
 */
export const FREEZE_CSS = `*,*::before,*::after{animation-delay:-1ms!important;animation-duration:0s!important;animation-iteration-count:1!important;animation-play-state:paused!important;transition:none!important;caret-color:transparent!important;scroll-behavior:auto!important}`;

const ADOPT_FREEZE_CSS = `(() => {
  if (window.__vigilFrozenSheet) return;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(${JSON.stringify(FREEZE_CSS)});
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  Object.defineProperty(window, '__vigilFrozenSheet', { value: sheet, configurable: true });
})()`;

/**
 * Runs in the page: waits for fonts and images, freezes animated images on frame 0 (the image's
 * `data-vigil-frozen` keeps its URL) and videos. By the browser's own timers: Vigil's waits are not
 * the page's activity (performance/activity.ts).
 */
const SETTLE = `async (budgetMs, fetchOk) => {
  const T = window.__vigilActivity?.native ?? { setTimeout: setTimeout.bind(window), clearTimeout: clearTimeout.bind(window), requestAnimationFrame: requestAnimationFrame.bind(window) };
  const deadline = Date.now() + budgetMs;
  const left = () => Math.max(0, deadline - Date.now());
  const within = (p) => { let t; return Promise.race([p, new Promise((r) => { t = T.setTimeout(r, left()); })]).finally(() => T.clearTimeout(t)); };
  await within(document.fonts.ready);
  const imgs = Array.from(document.images);
  await within(Promise.all(imgs.map((img) => img.complete ? undefined : new Promise((r) => { img.addEventListener('load', r, { once: true }); img.addEventListener('error', r, { once: true }); }))));
  const animated = !fetchOk ? [] : imgs.filter((img) => img.complete && img.naturalWidth > 0 && !img.dataset.vigilFrozen && /\\.(gif|png|apng|webp)([?#]|$)|^data:image\\/(gif|png|apng|webp)/i.test(img.currentSrc)).slice(0, 50);
  await within(Promise.all(animated.map(async (img) => {
    try {
      // createImageBitmap decodes the default (first) frame of an animated image.
      const blob = await (await fetch(img.currentSrc, { cache: 'force-cache' })).blob();
      const bmp = await createImageBitmap(blob);
      const canvas = document.createElement('canvas');
      canvas.width = bmp.width;
      canvas.height = bmp.height;
      canvas.getContext('2d').drawImage(bmp, 0, 0);
      const src = img.getAttribute('src');
      const srcset = img.getAttribute('srcset');
      img.dataset.vigilFrozen = img.currentSrc;
      img.removeAttribute('srcset');
      img.src = canvas.toDataURL('image/png');
      // A page whose Content-Security-Policy refuses data: images keeps its image as it was.
      const ok = await img.decode().then(() => true, () => false);
      if (!ok) {
        delete img.dataset.vigilFrozen;
        if (srcset !== null) img.setAttribute('srcset', srcset);
        if (src !== null) img.setAttribute('src', src); else img.removeAttribute('src');
        await img.decode().catch(() => undefined);
      }
    } catch {}
  })));
  for (const v of Array.from(document.querySelectorAll('video'))) { try { v.pause(); v.currentTime = 0; } catch {} }
  for (const a of document.getAnimations()) { try { a.pause(); a.currentTime = 0; } catch {} }
  await new Promise((r) => T.requestAnimationFrame(() => T.requestAnimationFrame(r)));
}`;

/**
 * Installed before the page's scripts (init script): while `window.__vigilCapturing` is set, the
 * page's own `resize` handlers are not called. Chromium resizes the window to 1x1 and back around a
 * capture beyond the viewport, and responsive scripts (a sidebar that collapses under 480 px, a
 * carousel that re-measures) would otherwise change the page between captures, or capture it as
 * no visitor sees it. CSS still lays out at the real width once the capture has begun.
 */
export const CAPTURE_GUARD_INIT = `(() => {
  if (window.__vigilCaptureGuard) return;
  window.__vigilCaptureGuard = true;
  const guarded = new WeakMap();
  const guard = (listener) => {
    if (!listener || (typeof listener !== 'function' && typeof listener.handleEvent !== 'function')) return listener;
    let g = guarded.get(listener);
    if (!g) {
      g = function (event) {
        if (window.__vigilCapturing) return undefined;
        return typeof listener === 'function' ? listener.call(this, event) : listener.handleEvent(event);
      };
      guarded.set(listener, g);
    }
    return g;
  };
  const add = EventTarget.prototype.addEventListener;
  const remove = EventTarget.prototype.removeEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    return add.call(this, type, this === window && type === 'resize' ? guard(listener) : listener, options);
  };
  EventTarget.prototype.removeEventListener = function (type, listener, options) {
    return remove.call(this, type, this === window && type === 'resize' && listener && guarded.has(listener) ? guarded.get(listener) : listener, options);
  };
  const property = Object.getOwnPropertyDescriptor(window, 'onresize') ?? Object.getOwnPropertyDescriptor(Object.getPrototypeOf(window), 'onresize');
  let handler = null;
  if (property && property.configurable !== false) {
    Object.defineProperty(window, 'onresize', {
      configurable: true,
      get: () => handler,
      set: (fn) => {
        handler = typeof fn === 'function' ? fn : null;
        property.set?.call(window, handler && function (event) { return window.__vigilCapturing ? undefined : handler.call(this, event); });
      },
    });
  }
})()`;

export interface Capture {
  png: Buffer;
  /** Screenshots taken (1: the page provably did not change while it was captured). */
  captures: number;
  /** Whether the last two screenshots agreed, or the only one is proven to be the page as it stays. */
  stable: boolean;
  /** When not stable: the areas that changed between consecutive screenshots, with their selectors. */
  moving: MovingArea[];
  /** Takes one more screenshot the same way (while the page is open). */
  shoot: () => Promise<Buffer>;
  /** The page's visible text and boxes as captured (text-snapshot.ts); absent when it could not be read. */
  text?: TextSnapshot;
}

/** A screenshot's time limit when the caller gives none (the default options.timeout). */
export const DEFAULT_SHOT_TIMEOUT_MS = 30_000;

/**
 * Paints `mask` over (an `x-vigil-mask` box over each element matched, in document coordinates,
 * styled through the CSSOM, which a page's Content-Security-Policy does not govern); REMOVE_MASKS
 * takes the boxes away.
 */
const ADD_MASKS = `(selectors) => {
  const boxes = [];
  for (const selector of selectors) {
    let found = [];
    try { found = Array.from(document.querySelectorAll(selector)); } catch {}
    for (const element of found) {
      const r = element.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      const box = document.createElement('x-vigil-mask');
      const s = box.style;
      s.setProperty('position', 'absolute', 'important');
      s.setProperty('left', (r.left + window.scrollX) + 'px', 'important');
      s.setProperty('top', (r.top + window.scrollY) + 'px', 'important');
      s.setProperty('width', r.width + 'px', 'important');
      s.setProperty('height', r.height + 'px', 'important');
      s.setProperty('background', '#ff00ff', 'important');
      s.setProperty('z-index', '2147483647', 'important');
      s.setProperty('pointer-events', 'none', 'important');
      s.setProperty('display', 'block', 'important');
      s.setProperty('margin', '0', 'important');
      s.setProperty('border', '0', 'important');
      boxes.push(box);
    }
  }
  for (const box of boxes) document.documentElement.appendChild(box);
  return boxes.length;
}`;
const REMOVE_MASKS = `document.querySelectorAll('x-vigil-mask').forEach((box) => box.remove())`;

/**
 * A full-page screenshot with `mask` painted over, in CSS pixels (a page emulating a pixel ratio, as
 * mobile's 1.75, is downscaled) so regions, ignore_regions and min_region_px mean the same on every
 * device. Taken through the DevTools protocol with `optimizeForSpeed`: Chromium's PNG encoding at its
 * default effort was most of a tall page's capture (a 68,668 px page: 17-18 s, against 5-7 s), for a
 * file about 1.5 times larger. Animations and the caret are already frozen by FREEZE_CSS and SETTLE.
 */
export function screenshooter(page: Page, mask: readonly string[] = [], timeoutMs = DEFAULT_SHOT_TIMEOUT_MS): () => Promise<Buffer> {
  const capturing = (on: boolean) => page.evaluate(`window.__vigilCapturing = ${on}`).catch(() => undefined);
  let session: Promise<CDPSession> | undefined;
  return async () => {
    session ??= page.context().newCDPSession(page);
    const cdp = await session;
    await capturing(true);
    let timer: NodeJS.Timeout | undefined;
    try {
      const shot = (async () => {
        if (mask.length > 0) await page.evaluate(`(${ADD_MASKS})(${JSON.stringify(mask)})`);
        const { contentSize, cssContentSize } = await cdp.send('Page.getLayoutMetrics');
        const touch = (await page.evaluate('navigator.maxTouchPoints > 0').catch(() => false)) as boolean;
        const pixelRatio = contentSize.width / cssContentSize.width || 1;
        const width = Math.ceil(cssContentSize.width);
        const height = Math.ceil(cssContentSize.height);
        const { data } = await cdp.send('Page.captureScreenshot', {
          format: 'png',
          clip: { x: 0, y: 0, width, height, scale: 1 / pixelRatio },
          captureBeyondViewport: true,
          optimizeForSpeed: true,
        });
        // Capturing beyond the viewport turns touch emulation off (as Playwright also restores it).
        if (touch) await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true });
        return Buffer.from(data, 'base64');
      })();
      // The page's own budget (options.timeout): a 32,000 px page on a busy machine may need more than 30 s.
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new errors.TimeoutError(`screenshot: Timeout ${timeoutMs}ms exceeded`)), timeoutMs);
      });
      return await Promise.race([shot, late]);
    } finally {
      clearTimeout(timer);
      if (mask.length > 0) await page.evaluate(REMOVE_MASKS).catch(() => undefined);
      await capturing(false);
    }
  };
}

/**
 * Whether the page's Content-Security-Policy (its header, `headerPolicy`, or a <meta> of the page)
 * restricts what the page's fetch() may load: then the capture reads no image itself (the page
 * would see, and may report, a violation Vigil caused); it freezes no animated image and proves no
 * stillness, and takes the second screenshot instead.
 */
async function restrictsFetch(page: Page, headerPolicy: string): Promise<boolean> {
  const meta = (await page
    .evaluate(
      `Array.from(document.querySelectorAll('meta[http-equiv]')).filter((m) => /^content-security-policy$/i.test(m.httpEquiv)).map((m) => m.content).join(',')`,
    )
    .catch(() => '')) as string;
  return /(^|[;,]\s*)(connect-src|default-src)\s/i.test(`${headerPolicy},${meta}`);
}

/**
 * Freezes the page and takes screenshots until two consecutive ones agree (bounded); one is enough
 * when the page provably did not change while it was taken.
 */
export async function stableCapture(
  page: Page,
  opts: { mask?: string[]; settleMs?: number; contentSecurityPolicy?: string; shotTimeoutMs?: number },
): Promise<Capture> {
  const net = NetworkActivity.watch(page);
  const shoot = screenshooter(page, opts.mask, opts.shotTimeoutMs);
  let prev: Buffer;
  try {
    await page.evaluate(ADOPT_FREEZE_CSS);
    const fetchOk = !(await restrictsFetch(page, opts.contentSecurityPolicy ?? ''));
    await page.evaluate(`(${SETTLE})(${opts.settleMs ?? 5000}, ${fetchOk})`);
    const proof = await StillnessProof.begin(page, net, fetchOk);
    const startedAt = Date.now();
    prev = await shoot();
    if (await proof.holds(Date.now() - startedAt)) return { png: prev, captures: 1, stable: true, moving: [], shoot };
  } finally {
    net.stop();
  }
  let moving: Rect[] = [];
  for (let n = 2; n <= MAX_CAPTURES; n++) {
    const next = await shoot();
    const changed = changedAreas(prev, next);
    if (changed.length === 0) return { png: next, captures: n, stable: true, moving: [], shoot };
    moving = mergeRects([...moving, ...changed]);
    prev = next;
    // Give whatever is still moving (late fonts, images, script-driven changes) time to settle.
    await page.evaluate(`(${SETTLE})(1000, false)`);
    await page.waitForTimeout(100 * n);
  }
  return { png: prev, captures: MAX_CAPTURES, stable: false, moving: await withSelectors(page, moving), shoot };
}
