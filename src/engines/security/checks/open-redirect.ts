/** API8:2023 Security misconfiguration: redirect-like parameters sending Location to an external host. */
import type { CheckDefinition, CheckResult, Operation } from '../types.js';
import { buildRequest, describePoint, inject, injectionPoints, type InjectionPoint } from '../synth.js';
import { fail, pass } from './util.js';

const REDIRECT_NAME = /^(next|url|redirect|redirect_?(uri|url|to)|return|return_?(to|url|uri|path)|continue|dest|destination|go|goto|forward|callback_?url|success_?url|back_?url|r|u)$/i;
export const EVIL_HOST = 'evil.vigil-scan.example';
// Absolute, scheme-relative, and backslash (browsers read /\\host as //host).
const PAYLOADS = [`https://${EVIL_HOST}/`, `//${EVIL_HOST}/`, `/\\${EVIL_HOST}/`];

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

export const openRedirect: CheckDefinition = {
  id: 'open-redirect',
  title: 'Open redirect',
  owasp: 'API8:2023',
  cwe: 'CWE-601',
  scope: 'operation',
  applies: (op) => redirectPoints(op).length > 0,
  async run(scan, op) {
    const out: CheckResult[] = [];
    for (const point of redirectPoints(op!)) {
      const name = `Open redirect through ${describePoint(point)}`;
      let found: CheckResult | undefined;
      for (const payload of PAYLOADS) {
        const res = await scan.send({ ...buildRequest(op!, inject(op!, point, payload)), followRedirects: false });
        const redirecting = (res.status >= 300 && res.status < 400) || !!res.headers['refresh'];
        if (redirecting && redirectHost(res.headers, res.request.url) === EVIL_HOST) {
          found = fail(name, 'medium', scan.evidence(res, `${point.name}=${payload} sent the client to ${res.headers['location'] ?? res.headers['refresh']}`), { parameter: point.name });
          break;
        }
      }
      out.push(found ?? pass(name, { parameter: point.name }));
    }
    return out;
  },
};
