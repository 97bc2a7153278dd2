/**
 * API9:2023 Improper inventory: well-known debug, admin and metadata paths exposed, and older API
 * versions still served next to the documented one. Probed without credentials, relative to the
 * target URL (its path is where the app is mounted).
 */
import type { CheckContext, CheckResult, TargetCheck, TargetResponse } from '../types.js';
import { fail, pass } from './util.js';

interface Candidate {
  path: string;
  /** What the body must contain for the path to count as exposed. */
  proof: RegExp;
  severity: CheckResult['severity'];
  cwe: string;
}

const FILE_LEAK = 'CWE-538';
const DEBUG_CODE = 'CWE-489';
const ADMIN_SURFACE = 'CWE-749';
const OLD_VERSION = 'CWE-1059';

const WELL_KNOWN: Candidate[] = [
  { path: '/.env', proof: /^[A-Z_][A-Z0-9_]*=/m, severity: 'high', cwe: FILE_LEAK },
  { path: '/debug', proof: /debug|env|config|stack|version/i, severity: 'medium', cwe: DEBUG_CODE },
  { path: '/actuator', proof: /_links|actuator/i, severity: 'high', cwe: DEBUG_CODE },
  { path: '/actuator/env', proof: /propertySources|activeProfiles/i, severity: 'high', cwe: DEBUG_CODE },
  { path: '/.git/config', proof: /\[core\]/, severity: 'high', cwe: FILE_LEAK },
  { path: '/server-status', proof: /Apache Server Status/i, severity: 'medium', cwe: DEBUG_CODE },
  { path: '/phpinfo.php', proof: /phpinfo|PHP Version/i, severity: 'medium', cwe: DEBUG_CODE },
  { path: '/admin', proof: /admin/i, severity: 'medium', cwe: ADMIN_SURFACE },
];

/** Mount path of the app: the target URL's path without a trailing slash. */
function mountPath(ctx: CheckContext): string {
  return new URL(ctx.targetUrl).pathname.replace(/\/+$/, '');
}

/** Older versions of a versioned base path ("/api/v3" -> "/api/v2", "/api/v1"), each with a documented collection path. */
function olderVersions(ctx: CheckContext): Candidate[] {
  const m = /^(.*\/v)(\d+)$/.exec(ctx.model.serverPath);
  const current = m ? Number(m[2]) : 0;
  if (!m || current <= 1) return [];
  // The server path may include the mount path already; candidates are relative to the mount.
  const prefix = m[1].slice(mountPath(ctx).length);
  const collection = ctx.model.operations.find((o) => o.method === 'GET' && !o.path.includes('{'))?.path ?? '';
  const out: Candidate[] = [];
  for (let v = current - 1; v >= 1; v--) out.push({ path: `${prefix}${v}${collection}`, proof: /./, severity: 'medium', cwe: OLD_VERSION });
  return out;
}

function get(ctx: CheckContext, url: string): Promise<TargetResponse> {
  return ctx.send({ method: 'GET', path: url, query: [], headers: {}, identity: 'none' });
}

export const inventory: TargetCheck = {
  id: 'inventory',
  title: 'Improper inventory',
  description:
    'Requests well-known debug, administration and metadata paths (.env, .git/config, /debug, Spring actuator, server-status, phpinfo, /admin) and the older versions of a versioned base path, without credentials, and reports those that answer 200 with content that proves what they are (compared with a random path, so a catch-all is not reported).',
  risk:
    'Forgotten debug endpoints, configuration files and old API versions are outside the documentation and usually outside patching and monitoring: they leak secrets (database passwords, keys), internal state, or serve older code with flaws the current version fixed.',
  remediation:
    'Keep an inventory of every host, version and route the API serves; do not deploy .env or .git; disable debug and actuator endpoints in production or put them behind authentication on an internal network; retire old API versions or give them the same protections as the current one.',
  owasp: 'API9:2023',
  cwe: 'CWE-1059',
  references: [
    { title: 'OWASP REST Security Cheat Sheet: Management endpoints', url: 'https://cheatsheetseries.owasp.org/cheatsheets/REST_Security_Cheat_Sheet.html#management-endpoints' },
    { title: 'OWASP WSTG: Enumerate Infrastructure and Application Admin Interfaces', url: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/05-Enumerate_Infrastructure_and_Application_Admin_Interfaces' },
    { title: 'OWASP WSTG: Review Old Backup and Unreferenced Files for Sensitive Information', url: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/04-Review_Old_Backup_and_Unreferenced_Files_for_Sensitive_Information' },
  ],
  scope: 'target',
  async run(ctx) {
    const root = new URL(ctx.targetUrl).origin + mountPath(ctx);
    // A catch-all that answers 200 for anything would make every path look exposed: compare with a random path.
    const control = await get(ctx, `${root}/${ctx.marker}-nonexistent`);
    const out: CheckResult[] = [];
    for (const c of [...WELL_KNOWN, ...olderVersions(ctx)]) {
      const res = await get(ctx, root + c.path);
      const exposed = res.status === 200 && c.proof.test(res.body) && !(control.status === 200 && control.body === res.body);
      const endpoint = `GET ${c.path}`;
      out.push(exposed ? fail(`Exposed path ${c.path}`, c.severity, ctx.evidence(res, ctx.excerpt(res, 200)), { endpoint, cwe: c.cwe }) : pass(`Exposed path ${c.path}`, { endpoint, cwe: c.cwe }));
    }
    return out;
  },
};
