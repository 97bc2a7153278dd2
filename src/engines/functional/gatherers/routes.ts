/**
 * What a single-page app does in the page, recorded by an init script that runs before the app's
 * own: the URLs it navigates to itself (history.pushState / replaceState, hash changes), whether it
 * routes by the hash (it listens for hashchange or popstate), its DOM mutations and its fetch / XHR
 * requests in flight (so settle.ts can tell when the route has finished rendering). Nothing is
 * clicked: discovery is passive.
 */

/** Installed with page.addInitScript; the state lives on `window.__vigilSpa`. */
export const ROUTES_INIT = `(() => {
  if (window.__vigilSpa) return;
  const state = { routes: [], listensToUrl: false, lastMutation: 0, inflight: 0 };
  Object.defineProperty(window, '__vigilSpa', { value: state });
  const record = (u) => { try { if (u !== undefined && u !== null && state.routes.length < 500) state.routes.push(new URL(String(u), location.href).href); } catch {} };
  for (const name of ['pushState', 'replaceState']) {
    const original = history[name];
    history[name] = function (data, title, url) { record(url); return original.apply(this, arguments); };
  }
  const add = EventTarget.prototype.addEventListener;
  add.call(window, 'hashchange', () => record(location.href));
  EventTarget.prototype.addEventListener = function (type) {
    if (this === window && (type === 'hashchange' || type === 'popstate')) state.listensToUrl = true;
    return add.apply(this, arguments);
  };
  new MutationObserver(() => { state.lastMutation = performance.now(); }).observe(document, { childList: true, subtree: true, characterData: true });
  const done = () => { state.inflight = Math.max(0, state.inflight - 1); };
  const originalFetch = window.fetch;
  if (originalFetch) window.fetch = function () { state.inflight++; const p = originalFetch.apply(this, arguments); p.then(done, done); return p; };
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function () { state.inflight++; this.addEventListener('loadend', done, { once: true }); return send.apply(this, arguments); };
})()`;

/** What the links gatherer reads from the page: links, router link attributes and recorded routes. */
export const READ_ROUTES = `(() => {
  const state = window.__vigilSpa;
  const resolve = (v) => { try { return v ? new URL(v, document.baseURI).href : undefined; } catch { return undefined; } };
  const links = Array.from(document.querySelectorAll('a[href],area[href]')).filter((e) => !e.hasAttribute('download')).map((e) => e.href);
  // Router elements that are not links: a data-href, or Angular's routerLink on a non-anchor.
  const routerLinks = Array.from(document.querySelectorAll('[data-href],[routerlink]')).map((e) => resolve(e.getAttribute('data-href') ?? e.getAttribute('routerlink'))).filter(Boolean);
  const hashOf = (u) => { try { return new URL(u).hash; } catch { return ''; } };
  const hashRoutes = !!state && state.listensToUrl && [location.href, ...links, ...routerLinks, ...state.routes].some((u) => /^#!?\\//.test(hashOf(u)));
  return { links: [...links, ...routerLinks], routes: state ? state.routes : [], hashRoutes, url: location.href };
})()`;
