/** Path routing under /app with the History API: deep links (/app/scans/<id>, /app/billing) load the same index.html. */
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/app';

export interface Location {
  path: string;
  params: URLSearchParams;
}

const listeners = new Set<() => void>();

function read(): Location {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) || '/' : '/';
  return { path, params: new URLSearchParams(window.location.search) };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const target = to.startsWith('/') ? `${BASE}${to}` : to;
  if (options.replace) history.replaceState(null, '', target);
  else history.pushState(null, '', target);
  for (const listener of listeners) listener();
  if (!options.replace) window.scrollTo(0, 0);
}

window.addEventListener('popstate', () => {
  for (const listener of listeners) listener();
});

export function useLocation(): Location {
  const [location, setLocation] = useState(read);
  useEffect(() => {
    const update = () => setLocation(read());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return location;
}

/** An in-app link: a real href (open in a new tab works), navigation without reload on a plain click. */
export function href(path: string): string {
  return `${BASE}${path}`;
}

export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.target as Element | null)?.closest?.('a');
  if (!anchor || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if (anchor.target || anchor.hasAttribute('download') || anchor.origin !== window.location.origin || !anchor.pathname.startsWith(BASE)) return;
  event.preventDefault();
  navigate(anchor.pathname.slice(BASE.length) + anchor.search);
}
