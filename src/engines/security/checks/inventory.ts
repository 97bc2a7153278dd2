/** API9:2023 Improper inventory: well-known debug, admin and metadata paths exposed. */
import type { CheckDefinition, CheckResult } from '../types.js';

const PATHS: [string, RegExp][] = [
  ['/.env', /^[A-Z_][A-Z0-9_]*=/m],
  ['/debug', /debug|env|config|stack|version/i],
  ['/actuator', /_links|actuator/i],
  ['/actuator/env', /propertySources|activeProfiles/i],
  ['/.git/config', /\[core\]/],
  ['/server-status', /Apache Server Status/i],
  ['/phpinfo.php', /phpinfo|PHP Version/i],
  ['/admin', /admin/i],
];

export const inventory: CheckDefinition = {
  id: 'inventory',
  title: 'Improper inventory',
  owasp: 'API9:2023',
  cwe: 'CWE-1059',
  scope: 'target',
  async run(scan) {
    const out: CheckResult[] = [];
    // Relative to the target URL (its path is where the app is mounted), so a mounted app is probed where it lives.
    const t = new URL(scan.targetUrl);
    const origin = t.origin + t.pathname.replace(/\/+$/, "");
    // A catch-all that answers 200 for anything would make every path look exposed: compare with a random path.
    const control = await scan.client.send({ method: 'GET', url: `${origin}/vigil-nonexistent-${Date.now().toString(36)}`, headers: {} });
    const candidates = [...PATHS];
    const sp = scan.model.serverPath;
    const m = /^(.*\/v)(\d+)$/.exec(sp);
    if (m && Number(m[2]) > 1) for (let v = Number(m[2]) - 1; v >= 1; v--) candidates.push([`${m[1].slice(t.pathname.replace(/\/+$/, "").length)}${v}${scan.model.operations.find((o) => o.method === 'GET' && !o.path.includes('{'))?.path ?? ''}`, /./]);
    for (const [path, re] of candidates) {
      const res = await scan.client.send({ method: 'GET', url: origin + path, headers: {} });
      const exposed = res.status === 200 && re.test(res.body) && !(control.status === 200 && control.body === res.body);
      out.push(
        exposed
          ? { status: 'failed', name: `Exposed path ${path}`, severity: /env|git|actuator/.test(path) ? 'high' : 'medium', endpoint: `GET ${path}`, evidence: scan.evidence(res, scan.excerpt(res, 200)) }
          : { status: 'passed', name: `Exposed path ${path}`, severity: 'info', endpoint: `GET ${path}` },
      );
    }
    return out;
  },
};
