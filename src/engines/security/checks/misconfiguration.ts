/** API8:2023 Security misconfiguration: CORS reflection (arbitrary, null and downgraded origins) and missing security headers. */
import type { CheckDefinition, CheckResult } from '../types.js';
import { buildRequest } from '../synth.js';

export const misconfiguration: CheckDefinition = {
  id: 'misconfiguration',
  title: 'Security misconfiguration',
  owasp: 'API8:2023',
  cwe: 'CWE-942',
  scope: 'operation',
  applies: (op) => op.method === 'GET',
  async run(scan, op) {
    const out: CheckResult[] = [];
    const base = buildRequest(op!);
    const evil = 'https://evil.vigil-scan.example';
    const res = await scan.send({ ...base, headers: { ...base.headers, origin: evil } });
    const acao = res.headers['access-control-allow-origin'];
    const creds = res.headers['access-control-allow-credentials'] === 'true';
    const reflected = acao === evil || (acao === '*' && creds);
    out.push(
      reflected
        ? { status: 'failed', name: 'CORS allows arbitrary origins', severity: creds ? 'high' : 'medium', evidence: scan.evidence(res, `access-control-allow-origin: ${acao}${creds ? ', access-control-allow-credentials: true' : ''}`) }
        : { status: 'passed', name: 'CORS allows arbitrary origins', severity: 'info' },
    );
    const nullRes = await scan.send({ ...base, headers: { ...base.headers, origin: 'null' } });
    const nullOk = nullRes.headers['access-control-allow-origin'] === 'null';
    out.push(
      nullOk
        ? { status: 'failed', name: 'CORS allows the null origin', severity: 'medium', evidence: scan.evidence(nullRes, 'access-control-allow-origin: null') }
        : { status: 'passed', name: 'CORS allows the null origin', severity: 'info' },
    );
    // Downgraded origin: the http:// twin of an https origin the API would trust (the target's own
    // host), which any network attacker can serve. Subsumed when arbitrary origins are reflected.
    if (!reflected) {
      const t = new URL(scan.targetUrl);
      const httpsOrigins = [t.protocol === 'https:' ? t.origin : undefined, `https://${t.hostname}`].filter((o): o is string => !!o);
      // The target's own origin is not a downgrade when the target itself is plain http.
      const downgraded = [...new Set(httpsOrigins.map((o) => o.replace(/^https:/, 'http:')))].filter((o) => o !== t.origin);
      let hit: CheckResult | undefined;
      for (const origin of downgraded) {
        const r = await scan.send({ ...base, headers: { ...base.headers, origin } });
        if (r.headers['access-control-allow-origin'] === origin) {
          const c = r.headers['access-control-allow-credentials'] === 'true';
          hit = { status: 'failed', name: 'CORS trusts a downgraded (http://) origin', severity: c ? 'medium' : 'low', evidence: scan.evidence(r, `access-control-allow-origin: ${origin}${c ? ', access-control-allow-credentials: true' : ''}`) };
          break;
        }
      }
      out.push(hit ?? { status: 'passed', name: 'CORS trusts a downgraded (http://) origin', severity: 'info' });
    }
    if (res.status >= 200 && res.status < 300) {
      const missing = ['x-content-type-options', 'cache-control'].filter((h) => !res.headers[h]);
      if (new URL(res.request.url).protocol === 'https:' && !res.headers['strict-transport-security']) missing.push('strict-transport-security');
      out.push(
        missing.length
          ? { status: 'failed', name: 'Security headers on API responses', severity: 'low', cwe: 'CWE-693', evidence: scan.evidence(res, `Missing: ${missing.join(', ')}`) }
          : { status: 'passed', name: 'Security headers on API responses', severity: 'info', cwe: 'CWE-693' },
      );
      const leak = ['server', 'x-powered-by', 'x-aspnet-version'].map((h) => [h, res.headers[h]] as const).find(([, v]) => v && /\d+\.\d+/.test(v));
      out.push(
        leak
          ? { status: 'failed', name: 'Version-leaking headers', severity: 'low', cwe: 'CWE-200', evidence: scan.evidence(res, `${leak[0]}: ${leak[1]}`) }
          : { status: 'passed', name: 'Version-leaking headers', severity: 'info', cwe: 'CWE-200' },
      );
    }
    return out;
  },
};
