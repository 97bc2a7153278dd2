/** The shell: sign-in gate, navigation, the live socket, and the page for the current path. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { LiveSocket } from './live.js';
import { href, navigate, onLinkClick, useLocation } from './router.js';
import { session } from './session.js';
import type { ComponentType } from 'preact';
import { SignIn } from './pages/sign-in.js';
import { Loading } from './components.js';

/**
 * The signed-in pages are loaded on first use: the first page a visitor gets (sign-in) carries only the
 * shell, so it parses and paints with the least script.
 */
function lazy<P>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | undefined;
  let pending: Promise<void> | undefined;
  return function Lazy(props: P) {
    const [, setReady] = useState(0);
    if (loaded) {
      const Page = loaded as ComponentType<any>;
      return <Page {...props} />;
    }
    pending ??= load().then((page) => {
      loaded = page;
    });
    void pending.then(() => setReady((n) => n + 1));
    return <Loading what="Loading the page" />;
  };
}

const ScansPage = lazy(() => import('./pages/scans.js').then((m) => m.ScansPage));
const NewScanPage = lazy(() => import('./pages/new-scan.js').then((m) => m.NewScanPage));
const ScanPage = lazy(() => import('./pages/scan.js').then((m) => m.ScanPage));
const AccountPage = lazy(() => import('./pages/account.js').then((m) => m.AccountPage));
const TrendsPage = lazy(() => import('./pages/trends.js').then((m) => m.TrendsPage));
const WelcomePage = lazy(() => import('./pages/welcome.js').then((m) => m.WelcomePage));

function useSessionKey(): string | undefined {
  const [key, setKey] = useState(session.key());
  useEffect(() => session.subscribe(() => setKey(session.key())), []);
  return key;
}

const NAV = [
  { path: '/scans', label: 'Scans' },
  { path: '/scans/new', label: 'New scan' },
  { path: '/trends', label: 'Trends' },
  { path: '/billing', label: 'Usage & billing' },
];

export function App() {
  const key = useSessionKey();
  const location = useLocation();
  const live = useMemo(() => (key ? new LiveSocket(key) : undefined), [key]);
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    if (!live) return;
    const off = live.onState(setConnected);
    return () => {
      off();
      live.close();
    };
  }, [live]);

  useEffect(() => {
    document.addEventListener('click', onLinkClick);
    return () => document.removeEventListener('click', onLinkClick);
  }, []);

  const path = location.path.replace(/\/+$/, '') || '/';
  // Where a new customer comes back from the checkout: shown signed in or not (it hands over a new key).
  // Its frame is drawn at once, the page loaded into it: nothing moves when it arrives.
  if (path === '/welcome') {
    return (
      <main id="main" class="signin">
        <WelcomePage sessionId={location.params.get('session_id')} />
      </main>
    );
  }
  if (!key || !live) return <SignIn />;

  let page;
  let title = 'Scans';
  const scanMatch = /^\/scans\/([^/]+)$/.exec(path);
  if (path === '/' || path === '/scans') page = <ScansPage live={live} params={location.params} />;
  else if (path === '/scans/new') {
    title = 'New scan';
    page = <NewScanPage />;
  } else if (scanMatch) {
    title = 'Scan';
    page = <ScanPage id={decodeURIComponent(scanMatch[1]!)} live={live} />;
  } else if (path === '/billing' || path === '/usage' || path === '/account') {
    title = 'Usage & billing';
    page = <AccountPage live={live} params={location.params} />;
  } else if (path === '/trends') {
    title = 'Trends';
    page = <TrendsPage params={location.params} />;
  } else {
    title = 'Not found';
    page = (
      <div class="notice error" role="alert">
        <h1>Not found</h1>
        <p>
          There is no page at this address. <a href={href('/scans')}>Go to the scans</a>.
        </p>
      </div>
    );
  }
  document.title = `${title} · Vigil`;
  const current = path === '/' ? '/scans' : path;

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href('/scans')}>
          Vigil
        </a>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.path}>
                <a href={href(item.path)} aria-current={current === item.path ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class={`live ${connected ? 'on' : 'off'}`} role="status" title="Live updates over /ws/live">
          {connected ? 'Live' : 'Offline'}
        </span>
        <button
          type="button"
          class="link"
          onClick={() => {
            session.signOut('Signed out. The key was forgotten by this tab.');
            navigate('/', { replace: true });
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </>
  );
}
