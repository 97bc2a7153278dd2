/**
 * Proof that a page did not change while it was captured, so that one full-page screenshot is the
 * page as it stays and the second one, which would only show that, can be skipped (capture.ts).
 *
 * A page's pixels change when its script runs (a timer, a frame or idle callback, an observer, an
 * event handler), when a response arrives (an image, a font, data), or without script: a running
 * animation or playing media (frozen and paused before the capture), an animated image (GIF, APNG,
 * animated WebP or AVIF, an SVG with animations), a child frame, SMIL, a marquee. The proof holds
 * when, before the screenshot, nothing of the page's is due within the horizon and nothing of the
 * kinds that change without script is there or unseen (performance/activity.ts, plus the images
 * checked byte by byte); and after it (two rendering frames later, so that observers fired by the
 * capture's resize are delivered): no callback of the page's ran (`ran` unchanged), no request
 * started or ended (seen by the browser), the DOM did not change (Playwright's mask overlays
 * aside), and still nothing is due. Chromium resizes the window to 1x1 and back around a full-page
 * capture: the page's `resize` handlers are held back then (CAPTURE_GUARD_INIT), its
 * ResizeObserver and IntersectionObserver callbacks and media query listeners are counted in
 * `ran`; any of them makes the proof fail. Whatever cannot be proven
 * takes the old path: a second screenshot, compared.
 */
import type { Page } from 'playwright-core';
import { ACTIVITY_SNAPSHOT, NetworkActivity, NEXT_FRAME } from '../performance/activity.js';

/** Nothing of the page's may be due this soon after the capture (at least twice the screenshot's time). */
export const STILL_HORIZON_MS = 3000;
/** More images than this to check: not worth it, not provable. */
const MAX_IMAGES = 60;

/**
 * Runs in the page, before the screenshot: null when not provable; otherwise the page's `ran`, and a
 * MutationObserver is left watching the document until STILL_AFTER.
 */
const STILL_BEFORE = `async (horizonMs, fetchOk) => {
  const A = window.__vigilActivity;
  if (!A || document.fonts.status !== 'loaded') return null;
  // Pixels that change without script: SMIL, marquees, plugins.
  if (document.querySelector('marquee,animate,animateMotion,animateTransform,set,object,embed')) return null;
  const urls = new Set();
  const frozen = new Set();
  for (const img of Array.from(document.images)) {
    if (!img.complete) return null;
    if (img.dataset.vigilFrozen) frozen.add(img.dataset.vigilFrozen);
    else if (img.currentSrc && img.naturalWidth > 0) urls.add(img.currentSrc);
  }
  // Images drawn from CSS, SVG <image>, shadow roots: as the browser fetched them (a full buffer may miss some).
  const entries = performance.getEntriesByType('resource');
  if (entries.length >= 250) return null;
  for (const e of entries) {
    if (e.initiatorType === 'img' ? !frozen.has(e.name) : (e.initiatorType === 'css' || e.initiatorType === 'image') && !/\\.(woff2?|ttf|otf|eot|css)([?#]|$)/i.test(e.name)) urls.add(e.name);
  }
  if (urls.size > ${MAX_IMAGES} || (urls.size > 0 && !fetchOk)) return null;
  const animated = (buf) => {
    const u = new Uint8Array(buf);
    const find = (s, from = 0, to = u.length) => {
      const c = Array.from(s, (ch) => ch.charCodeAt(0));
      outer: for (let i = from; i <= Math.min(to, u.length) - c.length; i++) {
        for (let j = 0; j < c.length; j++) if (u[i + j] !== c[j]) continue outer;
        return i;
      }
      return -1;
    };
    if (u[0] === 0xff && u[1] === 0xd8) return false;
    if (u[0] === 0x89 && u[1] === 0x50 && u[2] === 0x4e && u[3] === 0x47) return find('acTL') >= 0;
    if (find('GIF8', 0, 4) === 0) {
      if (find('NETSCAPE2.0') >= 0) return true;
      const first = find('\\x21\\xf9\\x04');
      return first >= 0 && find('\\x21\\xf9\\x04', first + 1) >= 0;
    }
    if (find('RIFF', 0, 4) === 0 && find('WEBP', 8, 12) === 8) return find('ANIM') >= 0;
    if (find('ftyp', 4, 8) === 4) return find('avis', 0, 64) >= 0 || find('msf1', 0, 64) >= 0 || find('hevc', 0, 64) >= 0;
    if (u[0] === 0x42 && u[1] === 0x4d) return false;
    if (u[0] === 0 && u[1] === 0 && (u[2] === 1 || u[2] === 2) && u[3] === 0) return false;
    const text = new TextDecoder().decode(u.subarray(0, 1 << 21));
    if (/<svg[\\s>]/i.test(text)) return /<(animate|animateMotion|animateTransform|set|script|image|foreignObject)[\\s>/]|@keyframes|animation|transition/i.test(text);
    return true;
  };
  const verdicts = await Promise.all([...urls].map(async (url) => {
    try {
      const res = await fetch(url, { cache: 'force-cache' });
      return !res.ok || animated(await res.arrayBuffer());
    } catch { return true; }
  }));
  if (verdicts.some(Boolean)) return null;
  const s = (${ACTIVITY_SNAPSHOT})(horizonMs);
  if (s.never || s.pending) return null;
  const watch = { changes: 0 };
  // Vigil's mask boxes (x-vigil-mask) and Playwright's overlays (x-pw-*), added and removed around the screenshot, are not the page's.
  watch.own = (r) => r.type === 'childList' && [...r.addedNodes, ...r.removedNodes].every((n) => /^x-(pw|vigil)-/i.test(n.nodeName));
  watch.observer = new MutationObserver((records) => { watch.changes += records.filter((r) => !watch.own(r)).length; });
  watch.observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  Object.defineProperty(window, '__vigilStill', { value: watch, configurable: true });
  return s.ran;
}`;

/** Runs in the page, after the screenshot: whether the page stayed as it was (see the module's comment). */
const STILL_AFTER = `async ({ ran, horizonMs }) => {
  const watch = window.__vigilStill;
  if (!watch) return false;
  const frame = ${NEXT_FRAME};
  await frame();
  await frame();
  const changes = watch.changes + watch.observer.takeRecords().filter((r) => !watch.own(r)).length;
  watch.observer.disconnect();
  delete window.__vigilStill;
  const s = (${ACTIVITY_SNAPSHOT})(horizonMs);
  return changes === 0 && s.ran === ran && !s.never && !s.pending && document.fonts.status === 'loaded' && Array.from(document.images).every((img) => img.complete);
}`;

/** Watches a capture from before its screenshot to after it. */
export class StillnessProof {
  private constructor(
    private readonly page: Page,
    private readonly net: NetworkActivity,
    private readonly ran: number | null,
    private readonly version: number,
    private readonly idle: boolean,
  ) {}

  /**
   * Right before the screenshot (`fetchOk`: the page's policy lets its fetch() read its images;
   * otherwise a page with images is not provable). `net` has watched the page's requests since before its capture was
   * prepared (a request it did not see start is seen ending).
   */
  static async begin(page: Page, net: NetworkActivity, fetchOk = true): Promise<StillnessProof> {
    const ran = (await page.evaluate(`(${STILL_BEFORE})(${STILL_HORIZON_MS}, ${fetchOk})`).catch(() => null)) as number | null;
    return new StillnessProof(page, net, ran, net.version, net.idle);
  }

  /** Right after the screenshot, which took `shotMs`: whether that screenshot is the page as it stays. */
  async holds(shotMs: number): Promise<boolean> {
    if (this.ran === null) return false;
    const horizonMs = Math.max(STILL_HORIZON_MS, 2 * shotMs);
    // Also ends the DOM watch.
    const still = (await this.page.evaluate(`(${STILL_AFTER})(${JSON.stringify({ ran: this.ran, horizonMs })})`).catch(() => false)) as boolean;
    return still && this.idle && this.net.idle && this.net.version === this.version;
  }
}
