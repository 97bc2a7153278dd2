/**
 * API8:2023 Security misconfiguration: CORS reflection (arbitrary, null and downgraded origins),
 * missing security headers and version-leaking headers. These are properties of the server, not of
 * one operation: each is one result for the target listing the read operations affected.
 *
 * CORS is probed on every read operation (an Origin header the baseline does not carry); headers
 * are read from the baselines the engine already gathered (no extra request). Only 2xx baselines
 * are judged for headers: an error page often comes from another layer.
 */
import type { CheckContext, CheckResult, Operation, TargetCheck, TargetResponse } from '../types.js';
import { mapLimit, perTargetResult, readOperations, type Affected } from './per-target.js';
import { ok } from './util.js';

const EVIL_ORIGIN = 'https://evil.vigil-scan.example';
const PROBES_IN_FLIGHT = 4;

const NAMES = {
  arbitrary: 'CORS allows arbitrary origins',
  nullOrigin: 'CORS allows the null origin',
  downgraded: 'CORS trusts a downgraded (http://) origin',
  headers: 'Security headers on API responses',
  version: 'Version-leaking headers',
};

const VERSION_HEADERS = ['server', 'x-powered-by', 'x-aspnet-version', 'x-aspnetmvc-version'];

/** http:// twins of https origins the API would trust (the target's own host); none when the target itself is plain http on that origin. */
function downgradedOrigins(targetUrl: string): string[] {
  const t = new URL(targetUrl);
  const httpsOrigins = [t.protocol === 'https:' ? t.origin : undefined, `https://${t.hostname}`].filter((o): o is string => !!o);
  return [...new Set(httpsOrigins.map((o) => o.replace(/^https:/, 'http:')))].filter((o) => o !== t.origin);
}

interface CorsFindings {
  arbitrary?: Affected;
  nullOrigin?: Affected;
  downgraded?: Affected;
}

/** Whether the target's callers hold credentials a browser sends by itself: a cookie it set, or an identity's cookie or Basic credential. */
async function ambientCredentials(ctx: CheckContext, res: TargetResponse): Promise<boolean> {
  if (res.headers['set-cookie']) return true;
  if (!ctx.hasAuth) return false;
  const headers = await ctx.authHeaders('primary');
  return Object.entries(headers).some(([k, v]) => k.toLowerCase() === 'cookie' || (k.toLowerCase() === 'authorization' && /^basic /i.test(v)));
}

async function probeCors(ctx: CheckContext, op: Operation, downgraded: string[]): Promise<CorsFindings> {
  const base = ctx.request(op);
  const withOrigin = (origin: string) => ctx.send({ ...base, headers: { ...base.headers, origin } });
  const out: CorsFindings = {};
  const res = await withOrigin(EVIL_ORIGIN);
  const acao = res.headers['access-control-allow-origin'];
  const creds = res.headers['access-control-allow-credentials'] === 'true';
  const reflected = acao === EVIL_ORIGIN || (acao === '*' && creds);
  if (reflected) {
    // High only where a victim's browser would send credentials of its own: an echoed origin (browsers refuse a credentialed
    // answer whose origin is `*`) and a cookie or Basic credential (a bearer token in a header is never sent by the browser on its own).
    const high = acao === EVIL_ORIGIN && creds && (await ambientCredentials(ctx, res));
    out.arbitrary = {
      op,
      res,
      severity: high ? 'high' : 'medium',
      detail: `access-control-allow-origin: ${acao}${creds ? ', access-control-allow-credentials: true' : ''}`,
    };
  }
  const nullRes = await withOrigin('null');
  if (nullRes.headers['access-control-allow-origin'] === 'null')
    out.nullOrigin = { op, res: nullRes, severity: 'medium', detail: 'access-control-allow-origin: null' };
  // A downgraded origin is subsumed when arbitrary origins are reflected.
  if (!reflected) {
    for (const origin of downgraded) {
      const r = await withOrigin(origin);
      if (r.headers['access-control-allow-origin'] !== origin) continue;
      const c = r.headers['access-control-allow-credentials'] === 'true';
      out.downgraded = {
        op,
        res: r,
        severity: c ? 'medium' : 'low',
        detail: `access-control-allow-origin: ${origin}${c ? ', access-control-allow-credentials: true' : ''}`,
      };
      break;
    }
  }
  return out;
}

function missingHeaders(res: TargetResponse): string[] {
  const missing = ['x-content-type-options', 'cache-control'].filter((h) => !res.headers[h]);
  if (new URL(res.request.url).protocol === 'https:' && !res.headers['strict-transport-security']) missing.push('strict-transport-security');
  return missing;
}

function versionLeak(res: TargetResponse): string | undefined {
  const leak = VERSION_HEADERS.map((h) => [h, res.headers[h]] as const).find(([, v]) => v && /\d+\.\d+/.test(v));
  return leak && `${leak[0]}: ${leak[1]}`;
}

export const misconfiguration: TargetCheck = {
  id: 'misconfiguration',
  title: 'Security misconfiguration (CORS and headers)',
  description:
    'Sends each read operation with a foreign Origin (an arbitrary https origin, "null", and the http:// twin of the target\'s own origin) and checks whether CORS lets that origin read the answer; reads the operations\' normal responses for missing security headers (X-Content-Type-Options, Cache-Control, and Strict-Transport-Security over https) and for Server/X-Powered-By headers that give a version.',
  risk: 'A CORS policy that trusts any origin (with credentials) lets any web page a victim visits call the API as the victim and read the answers. Without nosniff and Cache-Control, API responses may be interpreted as HTML or kept in shared caches; version banners tell an attacker which known vulnerabilities to try.',
  remediation:
    'Allow only a fixed list of trusted https origins (never reflect the Origin header, never allow "null", never combine a wildcard with credentials). Send X-Content-Type-Options: nosniff, Cache-Control: no-store on responses with private data, and HSTS over https. Remove version numbers from Server and X-Powered-By.',
  owasp: 'API8:2023',
  cwe: 'CWE-942',
  references: [
    { title: 'OWASP REST Security Cheat Sheet: CORS', url: 'https://cheatsheetseries.owasp.org/cheatsheets/REST_Security_Cheat_Sheet.html#cors' },
    {
      title: 'OWASP REST Security Cheat Sheet: Security headers',
      url: 'https://cheatsheetseries.owasp.org/cheatsheets/REST_Security_Cheat_Sheet.html#security-headers',
    },
    { title: 'OWASP HTTP Headers Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/HTTP_Headers_Cheat_Sheet.html' },
    { title: 'MDN: Cross-Origin Resource Sharing (CORS)', url: 'https://developer.mozilla.org/en-US/docs/Web/HTTP/CORS' },
  ],
  scope: 'target',
  applies: (ctx) => readOperations(ctx).length > 0 || 'no read (GET) operation to probe',
  async run(ctx) {
    const ops = readOperations(ctx);
    const downgraded = downgradedOrigins(ctx.targetUrl);
    const cors = await mapLimit(ops, PROBES_IN_FLIGHT, ctx.signal, (op) => probeCors(ctx, op, downgraded));
    const baselines = await mapLimit(ops, PROBES_IN_FLIGHT, ctx.signal, (op) => ctx.baseline(op));
    const found = (key: keyof CorsFindings) => cors.map((c) => c[key]).filter((a): a is Affected => !!a);

    const judged = ops.map((op, i) => ({ op, res: baselines[i] })).filter(({ res }) => ok(res));
    const missing: Affected[] = [];
    const leaking: Affected[] = [];
    for (const { op, res } of judged) {
      const m = missingHeaders(res);
      if (m.length) missing.push({ op, res, severity: 'low', detail: `Missing: ${m.join(', ')}` });
      const leak = versionLeak(res);
      if (leak) leaking.push({ op, res, severity: 'low', detail: leak });
    }

    const out: CheckResult[] = [
      perTargetResult(ctx, NAMES.arbitrary, found('arbitrary'), `${ops.length} read operations`),
      perTargetResult(ctx, NAMES.nullOrigin, found('nullOrigin'), `${ops.length} read operations`),
      perTargetResult(ctx, NAMES.downgraded, found('downgraded'), `${ops.length} read operations`),
    ];
    // Headers are judged on successful answers only: none means nothing was judged.
    if (judged.length > 0) {
      out.push(perTargetResult(ctx, NAMES.headers, missing, `${judged.length} successful reads`, { cwe: 'CWE-693' }));
      out.push(perTargetResult(ctx, NAMES.version, leaking, `${judged.length} successful reads`, { cwe: 'CWE-497' }));
    }
    return out;
  },
};
