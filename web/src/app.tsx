/** The shell: sign-in gate, navigation, the live socket, and the page for the current path. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api } from './api.js';
import { LiveSocket } from './live.js';
import { href, navigate, onLinkClick, useLocation } from './router.js';
import { cookieSessionOf, session } from './session.js';
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
const SuppressionsPage = lazy(() => import('./pages/triage.js').then((m) => m.SuppressionsPage));
const WelcomePage = lazy(() => import('./pages/welcome.js').then((m) => m.WelcomePage));
const MembersPage = lazy(() => import('./pages/members.js').then((m) => m.MembersPage));
const AuditPage = lazy(() => import('./pages/audit.js').then((m) => m.AuditPage));
const SsoPage = lazy(() => import('./pages/sso.js').then((m) => m.SsoPage));

/** Changes whenever the sign-in changes (a cookie session or none). */
function useSignIn(): number {
  const [version, setVersion] = useState(0);
  useEffect(() => session.subscribe(() => setVersion((v) => v + 1)), []);
  return version;
}

/**
 * Asks the server whether the browser holds a session cookie (back from the identity provider, or a reload
 * after a single sign-on or a key sign-in): true while that question is open.
 */
function useCookieProbe(): boolean {
  const [probing, setProbing] = useState(!session.active());
  useEffect(() => {
    if (!probing) return;
    api('get', '/session')
      .then((found) => {
        const cookie = cookieSessionOf(found);
        if (cookie) session.useCookie(cookie);
      })
      .catch(() => undefined)
      .finally(() => setProbing(false));
  }, []);
  return probing;
}

type Role = ReturnType<typeof session.role>;

const NAV: { path: string; label: string; roles: Role[] }[] = [
  { path: '/scans', label: 'Scans', roles: ['admin', 'member', 'viewer'] },
  { path: '/scans/new', label: 'New scan', roles: ['admin', 'member'] },
  { path: '/trends', label: 'Trends', roles: ['admin', 'member', 'viewer'] },
  { path: '/suppressions', label: 'Suppressions', roles: ['admin', 'member', 'viewer'] },
  { path: '/billing', label: 'Usage & billing', roles: ['admin', 'member', 'viewer'] },
  { path: '/members', label: 'Members', roles: ['admin'] },
  { path: '/audit-log', label: 'Audit log', roles: ['admin'] },
  { path: '/sso', label: 'SSO', roles: ['admin'] },
];

/** Ends the sign-in on the server too (DELETE /session), which clears the cookie. */
async function signOut(): Promise<void> {
  try {
    await api('delete', '/session');
  } catch {
    /* already ended on the server: forgetting it here is all that is left */
  }
  session.signOut('Signed out. The session was ended on the server.');
  navigate('/', { replace: true });
}

export function App() {
  const signIn = useSignIn();
  const probing = useCookieProbe();
  const active = session.active();
  const role = session.role();
  const location = useLocation();
  const live = useMemo(() => (active ? new LiveSocket() : undefined), [signIn, active]);
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
  // The sign-in page is drawn at once, hidden while the cookie question is open: no layout shift when it shows.
  if (probing || !active || !live) return <SignIn hidden={probing} />;
  const cookie = session.cookie();

  let page;
  let title = 'Scans';
  const scanMatch = /^\/scans\/([^/]+)$/.exec(path);
  // /sign-in is where a refused single sign-on lands; signed in (another way), it is the scans.
  if (path === '/' || path === '/scans' || path === '/sign-in') page = <ScansPage live={live} params={location.params} />;
  else if (path === '/scans/new') {
    title = 'New scan';
    page = session.can('operate') ? (
      <NewScanPage />
    ) : (
      <div class="notice" role="status">
        <h1>New scan</h1>
        <p>
          The {role} role can read scans but not start them; ask a member or an admin of the tenant. <a href={href('/scans')}>Go to the scans</a>.
        </p>
      </div>
    );
  } else if (scanMatch) {
    title = 'Scan';
    page = <ScanPage id={decodeURIComponent(scanMatch[1]!)} live={live} />;
  } else if (path === '/billing' || path === '/usage' || path === '/account') {
    title = 'Usage & billing';
    page = <AccountPage live={live} params={location.params} />;
  } else if (path === '/members') {
    title = 'Members';
    page = <MembersPage />;
  } else if (path === '/audit-log') {
    title = 'Audit log';
    page = <AuditPage params={location.params} />;
  } else if (path === '/sso') {
    title = 'Single sign-on';
    page = <SsoPage />;
  } else if (path === '/trends') {
    title = 'Trends';
    page = <TrendsPage params={location.params} />;
  } else if (path === '/suppressions') {
    title = 'Suppressions';
    page = <SuppressionsPage />;
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
            {NAV.filter((item) => item.roles.includes(role)).map((item) => (
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
        {cookie && (
          <span class="who">
            {cookie.email ?? (cookie.method === 'key' ? 'API key' : 'Signed in')} · {cookie.role}
          </span>
        )}
        <button type="button" class="link" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </>
  );
}
