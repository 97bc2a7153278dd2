/** Open redirect: redirect-like parameters sending Location (or Refresh) to an external host. */
import type { Operation } from '../types.js';
import { injectionPoints, type InjectionPoint } from '../synth.js';
import { payloadCheck } from './payload-check.js';

const REDIRECT_NAME =
  /^(next|url|redirect|redirect_?(uri|url|to)|return|return_?(to|url|uri|path)|continue|dest|destination|go|goto|forward|callback_?url|success_?url|back_?url|r|u)$/i;
export const EVIL_HOST = 'evil.vigil-scan.example';

export function redirectPoints(op: Operation): InjectionPoint[] {
  return injectionPoints(op).filter((p) => (p.kind === 'query' || p.kind === 'body') && REDIRECT_NAME.test(p.name));
}

/** The host a Location (or Refresh: 0;url=...) header sends the client to, resolved against the request URL. */
function redirectHost(headers: Record<string, string>, requestUrl: string): string | undefined {
  const loc = headers['location'] ?? /url\s*=\s*['"]?([^'";\s]+)/i.exec(headers['refresh'] ?? '')?.[1];
  if (!loc) return undefined;
  try {
    // Browsers treat a backslash like a slash in special URLs; WHATWG URL parsing does the same.
    return new URL(loc, requestUrl).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export const openRedirect = payloadCheck({
  id: 'open-redirect',
  title: 'Open redirect',
  description:
    'Gives each redirect-like query parameter or body field (next, url, redirect_uri, return_to...) an external host written three ways (absolute, scheme-relative //host, and /\\host) and reports when the answer redirects there.',
  risk: 'A link on the API’s own domain sends users to a site the attacker controls: convincing phishing, and where the redirect carries an OAuth code or token, account takeover.',
  remediation:
    'Redirect only to relative paths that start with a single "/" (not "//" or "/\\"), or to an allow-list of absolute URLs; better, accept an identifier of the destination and map it to a URL on the server; for OAuth, match redirect_uri exactly against the registered ones.',
  owasp: 'API8:2023',
  cwe: 'CWE-601',
  references: [
    {
      title: 'OWASP Unvalidated Redirects and Forwards Cheat Sheet',
      url: 'https://cheatsheetseries.owasp.org/cheatsheets/Unvalidated_Redirects_and_Forwards_Cheat_Sheet.html',
    },
  ],
  severity: 'medium',
  label: 'Open redirect through',
  points: redirectPoints,
  nothingToTest: 'no redirect-like parameter',
  // Absolute, scheme-relative, and backslash (browsers read /\host as //host).
  payloads: () => [`https://${EVIL_HOST}/`, `//${EVIL_HOST}/`, `/\\${EVIL_HOST}/`],
  probe: { followRedirects: false },
  judge: (res, _base, payload, _ctx, point) => {
    const redirecting = (res.status >= 300 && res.status < 400) || !!res.headers['refresh'];
    if (!redirecting || redirectHost(res.headers, res.request.url) !== EVIL_HOST) return undefined;
    return `${point.name}=${String(payload)} sent the client to ${res.headers['location'] ?? res.headers['refresh']}`;
  },
});
