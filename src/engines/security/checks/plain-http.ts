/**
 * API8:2023 Security misconfiguration: HTTP where HTTPS is expected. HTTPS is expected when the
 * target URL is https, or when every absolute server URL of the spec is https. The API must then
 * refuse plain HTTP or redirect it to https.
 *
 * Rule (false-positive guards): loopback targets (localhost, 127.0.0.0/8, ::1) are not judged, since
 * they are development setups with TLS terminated in front; for an https target only the default
 * port is probed over http (port 80), and without credentials so none travel in clear text; only
 * a 2xx or a 401 over plain HTTP (the API itself answered) fails; refused connections, redirects
 * to https and other errors pass.
 */
import { isIP } from 'node:net';
import type { CheckDefinition, CheckResult } from '../types.js';
import { buildRequest } from '../synth.js';
import { fail, pass } from './util.js';

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}

export const plainHttp: CheckDefinition = {
  id: 'plain-http',
  title: 'HTTP where HTTPS is expected',
  owasp: 'API8:2023',
  cwe: 'CWE-319',
  scope: 'target',
  async run(scan) {
    const target = new URL(scan.targetUrl);
    const schemes = scan.model.serverSchemes;
    const expected = target.protocol === 'https:' || (schemes.length > 0 && schemes.every((s) => s === 'https'));
    if (!expected || isLoopbackHost(target.hostname)) return [];
    if (target.protocol === 'https:' && target.port !== '') return [];
    const op = scan.model.operations.find((o) => o.method === 'GET' && !o.path.includes('{')) ?? scan.model.operations.find((o) => o.method === 'GET');
    const req = op ? buildRequest(op) : { method: 'GET', path: '/', query: [] as [string, string][], headers: {} };
    const url = new URL(scan.url(req.path, req.query));
    url.protocol = 'http:';
    const overHttps = target.protocol === 'https:';
    // An https target is probed without credentials; an http target is what the scan already talks to.
    const res = overHttps
      ? await scan.client.send({ method: 'GET', url: url.href, headers: { accept: 'application/json, */*;q=0.8' } })
      : await scan.send({ method: 'GET', path: url.href, query: [], headers: req.headers });
    const name = 'HTTPS enforced (plain HTTP refused or redirected)';
    const endpoint = op ? op.key : 'GET /';
    const served = (res.status >= 200 && res.status < 300) || res.status === 401;
    const out: CheckResult[] = [];
    out.push(
      served
        ? fail(name, 'medium', scan.evidence(res, `${overHttps ? 'The target is https' : 'The spec declares only https servers'}, but ${url.origin} answered HTTP ${res.status} over plain HTTP without redirecting to https`), { endpoint })
        : pass(name, { endpoint }),
    );
    return out;
  },
};
