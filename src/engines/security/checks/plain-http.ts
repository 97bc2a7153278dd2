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
import type { CheckContext, TargetCheck } from '../types.js';
import { scannedOperations } from './per-target.js';
import { fail, pass } from './util.js';

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}

/** Why the check has nothing to judge on this target, or true. */
function judged(ctx: CheckContext): true | string {
  const target = new URL(ctx.targetUrl);
  const schemes = ctx.model.serverSchemes;
  const expected = target.protocol === 'https:' || (schemes.length > 0 && schemes.every((s) => s === 'https'));
  if (!expected) return 'HTTPS is not expected (http target and the spec does not declare only https servers)';
  if (isLoopbackHost(target.hostname)) return 'loopback target (development setup)';
  if (target.protocol === 'https:' && target.port !== '') return 'https target on a non-default port (no plain-HTTP twin to probe)';
  return true;
}

export const plainHttp: TargetCheck = {
  id: 'plain-http',
  title: 'HTTP where HTTPS is expected',
  description:
    'When the target URL is https, or the spec declares only https servers, sends a request over plain HTTP (without credentials for an https target) and reports when the API answers it instead of refusing it or redirecting to https.',
  risk: 'An API that also answers over plain HTTP lets anyone on the network path (public Wi-Fi, a compromised router) read and change requests and responses, including tokens, passwords and personal data; one request a client sends by mistake to http:// is enough.',
  remediation:
    'Serve the API only over TLS: refuse plain HTTP or answer it with a redirect to https (308) that carries no data, and send Strict-Transport-Security so clients never try http again.',
  owasp: 'API8:2023',
  cwe: 'CWE-319',
  references: [
    { title: 'OWASP Transport Layer Security Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Transport_Layer_Security_Cheat_Sheet.html' },
    {
      title: 'OWASP HTTP Strict Transport Security Cheat Sheet',
      url: 'https://cheatsheetseries.owasp.org/cheatsheets/HTTP_Strict_Transport_Security_Cheat_Sheet.html',
    },
  ],
  scope: 'target',
  applies: judged,
  async run(ctx) {
    if (judged(ctx) !== true) return [];
    const target = new URL(ctx.targetUrl);
    const ops = scannedOperations(ctx);
    const op = ops.find((o) => o.method === 'GET' && !o.path.includes('{')) ?? ops.find((o) => o.method === 'GET');
    const req = op ? ctx.request(op) : { method: 'GET', path: '/', query: [] as [string, string][], headers: {} as Record<string, string> };
    const url = new URL(ctx.url(req.path, req.query));
    url.protocol = 'http:';
    const overHttps = target.protocol === 'https:';
    // An https target is probed without credentials (none travel in clear text); an http target is what the scan already talks to.
    const res = overHttps
      ? await ctx.send({ method: 'GET', path: url.href, query: [], headers: { accept: 'application/json, */*;q=0.8' }, identity: 'none' })
      : await ctx.send({ method: 'GET', path: url.href, query: [], headers: req.headers });
    const name = 'HTTPS enforced (plain HTTP refused or redirected)';
    const endpoint = op ? op.key : 'GET /';
    const served = (res.status >= 200 && res.status < 300) || res.status === 401;
    return [
      served
        ? fail(
            name,
            'medium',
            ctx.evidence(
              res,
              `${overHttps ? 'The target is https' : 'The spec declares only https servers'}, but ${url.origin} answered HTTP ${res.status} over plain HTTP without redirecting to https`,
            ),
            { endpoint },
          )
        : pass(name, { endpoint }),
    ];
  },
};
