/**
 * Ending a load's observation as soon as nothing more can happen, instead of always waiting out the
 * quiet window. The metrics read at the end of the window (metrics.ts) only change if some task
 * runs inside it; a task needs a cause: a timer, an animation frame or idle callback, a posted
 * message, a network response, or a source this page does not see (a child frame, a worker, a
 * socket, a running animation or media element). ACTIVITY_INIT records the page's pending timers
 * and callbacks from before its first script; the page is provably quiet when no request is in
 * flight (seen by the browser, not the page) and no timer or callback is due before the window
 * would end. Anything this cannot see makes it say "not provable", and the full window is waited
 * for as before, so the figures are the same either way, only sooner.
 */
import type { Page, Request } from 'playwright-core';

/**
 * Installed with addInitScript before the metrics' init script; the state lives on
 * `window.__vigilActivity`, with the browser's own timer functions for Vigil's scripts (which must
 * not count as the page's work).
 */
export const ACTIVITY_INIT = `(() => {
  if (window.__vigilActivity) return;
  const w = window;
  const now = () => performance.now();
  // ran: callbacks of the page's that have run (timers, frames, idle callbacks, observers, media
  // query listeners), so a caller can tell whether any page script ran between two moments.
  const A = { timeouts: new Map(), intervals: new Map(), frames: new Set(), idles: new Set(), lastPost: 0, opaque: 0, ran: 0 };
  A.native = { setTimeout: w.setTimeout.bind(w), clearTimeout: w.clearTimeout.bind(w), requestAnimationFrame: w.requestAnimationFrame.bind(w) };
  Object.defineProperty(w, '__vigilActivity', { value: A });
  const { setTimeout: st, clearTimeout: ct, setInterval: si, requestAnimationFrame: raf, cancelAnimationFrame: caf } = w;
  w.setTimeout = function (fn, delay, ...args) {
    if (typeof fn !== 'function') { A.opaque++; return st.apply(w, arguments); }
    let id;
    id = st.call(w, function () { A.timeouts.delete(id); A.ran++; return fn.apply(this, arguments); }, delay, ...args);
    A.timeouts.set(id, now() + Math.max(0, Number(delay) || 0));
    return id;
  };
  w.setInterval = function (fn, delay, ...args) {
    if (typeof fn !== 'function') { A.opaque++; return si.apply(w, arguments); }
    const period = Math.max(0, Number(delay) || 0);
    let id;
    id = si.call(w, function () { A.intervals.set(id, now() + period); A.ran++; return fn.apply(this, arguments); }, delay, ...args);
    A.intervals.set(id, now() + period);
    return id;
  };
  w.clearTimeout = w.clearInterval = function (id) { A.timeouts.delete(id); A.intervals.delete(id); return ct.call(w, id); };
  w.requestAnimationFrame = function (fn) {
    let id;
    id = raf.call(w, function () { A.frames.delete(id); A.ran++; return fn.apply(this, arguments); });
    A.frames.add(id);
    return id;
  };
  w.cancelAnimationFrame = function (id) { A.frames.delete(id); return caf.call(w, id); };
  if (w.requestIdleCallback) {
    const ric = w.requestIdleCallback, cic = w.cancelIdleCallback;
    w.requestIdleCallback = function (fn, opts) {
      let id;
      id = ric.call(w, function () { A.idles.delete(id); A.ran++; return fn.apply(this, arguments); }, opts);
      A.idles.add(id);
      return id;
    };
    w.cancelIdleCallback = function (id) { A.idles.delete(id); return cic.call(w, id); };
  }
  const posting = (proto) => {
    const post = proto && proto.postMessage;
    if (post) proto.postMessage = function () { A.lastPost = now(); return post.apply(this, arguments); };
  };
  posting(w);
  posting(w.MessagePort && w.MessagePort.prototype);
  posting(w.BroadcastChannel && w.BroadcastChannel.prototype);
  for (const name of ['IntersectionObserver', 'ResizeObserver']) {
    const Base = w[name];
    if (typeof Base !== 'function') continue;
    const Counted = class extends Base { constructor(cb, ...a) { super(typeof cb === 'function' ? function () { A.ran++; return cb.apply(this, arguments); } : cb, ...a); } };
    Object.defineProperty(Counted, 'name', { value: name });
    w[name] = Counted;
  }
  // Media query listeners run when the window is resized (a full-page capture does): counted too.
  if (w.MediaQueryList) {
    const proto = w.MediaQueryList.prototype;
    const wrapped = new WeakMap();
    const counted = (fn) => {
      if (typeof fn !== 'function') return fn;
      if (!wrapped.has(fn)) wrapped.set(fn, function () { A.ran++; return fn.apply(this, arguments); });
      return wrapped.get(fn);
    };
    const { addEventListener: add, removeEventListener: remove, addListener, removeListener } = proto;
    proto.addEventListener = function (type, fn, ...rest) { return add.call(this, type, counted(fn), ...rest); };
    proto.removeEventListener = function (type, fn, ...rest) { return remove.call(this, type, (fn && wrapped.get(fn)) || fn, ...rest); };
    if (addListener) proto.addListener = function (fn) { return addListener.call(this, counted(fn)); };
    if (removeListener) proto.removeListener = function (fn) { return removeListener.call(this, (fn && wrapped.get(fn)) || fn); };
    const onchange = Object.getOwnPropertyDescriptor(proto, 'onchange');
    if (onchange && onchange.set) Object.defineProperty(proto, 'onchange', { ...onchange, set(fn) { onchange.set.call(this, counted(fn)); } });
  }
  for (const name of ['WebSocket', 'EventSource', 'Worker', 'SharedWorker', 'RTCPeerConnection']) {
    const Base = w[name];
    if (typeof Base !== 'function') continue;
    const Counted = class extends Base { constructor(...a) { super(...a); A.opaque++; } };
    Object.defineProperty(Counted, 'name', { value: name });
    w[name] = Counted;
  }
})()`;

/**
 * In-page function `(A, horizon)` of the page's activity state (`window.__vigilActivity`): `never`,
 * something is always pending or unseen (a child frame, a socket, a running animation or playing
 * media); `pending`, a timer, frame or idle callback of the page's could run before `horizon` (page
 * time), or a message was just posted.
 */
const PENDING = `(A, horizon) => {
  const animating = typeof document.getAnimations === 'function' && document.getAnimations().some((a) => a.playState === 'running');
  const playing = Array.from(document.querySelectorAll('video,audio')).some((e) => !e.paused);
  const never = A.opaque > 0 || window.length > 0 || animating || playing;
  const due = (t) => t <= horizon;
  const pending = A.frames.size > 0 || A.idles.size > 0 || performance.now() - A.lastPost < 50 || [...A.timeouts.values()].some(due) || [...A.intervals.values()].some(due);
  return { never, pending };
}`;

/**
 * In-page function: a promise for the end of the next rendering frame (its observers and paints
 * delivered), by the browser's own timers (at most 100 ms: a hidden page renders no frames).
 */
export const NEXT_FRAME = `() => new Promise((r) => { const N = window.__vigilActivity.native; const t = N.setTimeout(r, 100); N.requestAnimationFrame(() => N.setTimeout(() => { N.clearTimeout(t); r(); }, 0)); })`;

/**
 * Runs in the page: the page's activity now, for comparing two moments (the visual capture proves
 * with it that no page script ran across a screenshot): `ran`, the page's callbacks run so far;
 * `pending` and `never` as PENDING says, with a horizon `horizonMs` from now. Null when ACTIVITY_INIT
 * is not installed (nothing can be proven).
 */
export const ACTIVITY_SNAPSHOT = `(horizonMs) => {
  const A = window.__vigilActivity;
  if (!A) return null;
  const { never, pending } = (${PENDING})(A, performance.now() + horizonMs);
  return { ran: A.ran, pending, never };
}`;

/**
 * Runs in the page: after two rendering frames (so responses, observers and paints of the last
 * task are delivered), whether nothing the page does could run before `horizon` (page time).
 * `never`: something is always pending or unseen (a child frame, a socket, an animation loop), so
 * waiting will not make it provable.
 */
export const QUIET_CHECK = `async (quietMs) => {
  const A = window.__vigilActivity;
  const m = window.__vigil;
  if (!A || !m) return { quiet: false, never: true };
  const frame = ${NEXT_FRAME};
  const startedAt = performance.now();
  await frame();
  await frame();
  m.flush();
  const nav = performance.getEntriesByType('navigation')[0];
  if (!nav || !(nav.loadEventEnd > 0) || !(m.fcpSeenAt > 0)) return { quiet: false, never: false, startedAt };
  let busy = Math.max(nav.loadEventEnd, m.fcpSeenAt);
  for (const [s, d] of m.longtasks) busy = Math.max(busy, s + d);
  const { never, pending } = (${PENDING})(A, busy + quietMs);
  // An interval due inside the window re-arms forever: waiting will not make the page provable.
  const repeating = [...A.intervals.values()].some((t) => t <= busy + quietMs);
  return { quiet: !never && !pending, never: never || repeating, busy, startedAt };
}`;

/** The page's requests in flight, as the browser reports them (every frame, every kind). */
export class NetworkActivity {
  private inflight = new Set<Request>();
  /** Bumped on every request start and end: a check is valid only if nothing moved during it. */
  private changes = 0;
  /** When a request last started or ended (Date.now()). */
  private lastChangeAt = Date.now();
  private readonly onStart = (r: Request) => {
    this.inflight.add(r);
    this.changes++;
    this.lastChangeAt = Date.now();
  };
  private readonly onEnd = (r: Request) => {
    this.inflight.delete(r);
    this.changes++;
    this.lastChangeAt = Date.now();
  };

  private constructor(private readonly page: Page) {
    page.on('request', this.onStart);
    page.on('requestfinished', this.onEnd);
    page.on('requestfailed', this.onEnd);
  }

  static watch(page: Page): NetworkActivity {
    return new NetworkActivity(page);
  }

  get idle(): boolean {
    return this.inflight.size === 0;
  }

  get version(): number {
    return this.changes;
  }

  /**
   * Waits until no request has been in flight for `quietMs` in a row (Lighthouse's network quiet:
   * a request started meanwhile starts the count again); false when `capMs` ran out first.
   */
  async quietFor(quietMs: number, capMs: number): Promise<boolean> {
    const giveUpAt = Date.now() + capMs;
    for (;;) {
      const quietSince = this.idle ? this.lastChangeAt : Date.now();
      if (Date.now() - quietSince >= quietMs) return true;
      if (Date.now() >= giveUpAt) return false;
      await new Promise((r) => setTimeout(r, Math.max(10, Math.min(50, quietSince + quietMs - Date.now(), giveUpAt - Date.now()))));
    }
  }

  stop(): void {
    this.page.off('request', this.onStart);
    this.page.off('requestfinished', this.onEnd);
    this.page.off('requestfailed', this.onEnd);
  }
}

/**
 * Polls until the page is provably quiet (true) or it cannot become so (false: wait out the full
 * window). The network must be idle before and unchanged during each check; while a request is in
 * flight the page is waited for (as Lighthouse waits for network quiet), and so it is while a timer
 * or frame is pending, but only for `quietMs` + 500 ms since the last request or long task (a
 * chain of timers that keeps re-arming is not followed). At most `capMs` in all.
 */
export async function provablyQuiet(page: Page, net: NetworkActivity, quietMs: number, capMs: number): Promise<boolean> {
  const giveUpAt = Date.now() + capMs;
  let progressAt = Date.now();
  let lastBusy = -1;
  let lastVersion = net.version;
  while (Date.now() < giveUpAt) {
    if (!net.idle) {
      await new Promise((r) => setTimeout(r, 20));
      continue;
    }
    const before = net.version;
    const r = (await page.evaluate(`(${QUIET_CHECK})(${quietMs})`).catch(() => ({ quiet: false, never: true }))) as {
      quiet: boolean;
      never: boolean;
      busy?: number;
    };
    if (r.quiet && net.idle && net.version === before) return true;
    if (r.never) return false;
    if (r.busy !== lastBusy || net.version !== lastVersion) progressAt = Date.now();
    lastBusy = r.busy ?? lastBusy;
    lastVersion = net.version;
    if (Date.now() - progressAt > quietMs + 500) return false;
  }
  return false;
}
