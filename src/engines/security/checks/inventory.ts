/**
 * API9:2023 Improper inventory: well-known debug, admin and metadata paths exposed, and older API
 * versions still served next to the documented one. Probed without credentials, relative to the
 * target URL (its path is where the app is mounted).
 */
import type { CheckContext, CheckResult, Identity, TargetCheck, TargetResponse } from '../types.js';
import { sameContent } from './authz.js';
import { findExposure } from './data-exposure.js';
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

/** Where the API itself lives, relative to the mount path ("/api/v2" of a spec served under "/api/v2"), or "". */
function basePrefix(ctx: CheckContext): string {
  const mount = mountPath(ctx);
  const server = ctx.model.serverPath;
  return server.startsWith(mount) ? server.slice(mount.length) : server;
}

const VERSION_SEGMENT = /\/v(\d+)(?=\/|$)/;

interface OlderVersion {
  /** The documented operation's path relative to the mount ("/api/v2/users"). */
  documented: string;
  /** The same path one or more versions back ("/api/v1/users"). */
  older: string;
}

/**
 * Sibling versions of documented paths: the version segment of the base path or of the paths themselves
 * ("/api/v2/users" documented: "/api/v1/users"), for up to three collection reads (no path parameters),
 * each older version down to v1. A version the spec also documents is not a sibling.
 */
function olderVersions(ctx: CheckContext): OlderVersion[] {
  const prefix = basePrefix(ctx);
  const documentedPaths = new Set(ctx.model.operations.map((o) => prefix + o.path));
  const reads = ctx.model.operations.filter((o) => o.method === 'GET' && !o.path.includes('{') && VERSION_SEGMENT.test(prefix + o.path));
  const out: OlderVersion[] = [];
  for (const op of reads.slice(0, 3)) {
    const documented = prefix + op.path;
    const current = Number(VERSION_SEGMENT.exec(documented)![1]);
    for (let v = current - 1; v >= 1; v--) {
      const older = documented.replace(VERSION_SEGMENT, `/v${v}`);
      if (!documentedPaths.has(older) && !out.some((o) => o.older === older)) out.push({ documented, older });
    }
  }
  return out;
}

function get(ctx: CheckContext, url: string, identity: Identity = 'none'): Promise<TargetResponse> {
  return ctx.send({ method: 'GET', path: url, query: [], headers: {}, identity });
}

const refused = (res: TargetResponse) => res.status === 401 || res.status === 403;
const answered = (res: TargetResponse) => res.status >= 200 && res.status < 300;

/** Property names that hold what a serializer should filter out (credentials, secrets, personal data). */
const SENSITIVE_KEY = /pass(?:word|wd)|_?hash$|^hash|salt|secret|token|api_?key|private|ssn|social_?security|card|cvv|cvc|iban|email|phone|birth|address/i;

/** Every property name in a JSON body, at any depth. */
function keysOf(value: unknown, out = new Set<string>(), depth = 0): Set<string> {
  if (depth > 20 || value === null || typeof value !== 'object') return out;
  if (Array.isArray(value)) for (const item of value.slice(0, 50)) keysOf(item, out, depth + 1);
  else
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out.add(k);
      keysOf(v, out, depth + 1);
    }
  return out;
}

/**
 * What the older answer shows that the documented one, asked the same way, filters out: sensitive
 * property names only it carries, or a secret only it holds (a password hash). Empty when none.
 */
function extraSensitive(ctx: CheckContext, older: TargetResponse, current: TargetResponse): string[] {
  const now = keysOf(ctx.json(current));
  const extra = [...keysOf(ctx.json(older))].filter((k) => SENSITIVE_KEY.test(k) && !now.has(k));
  const secret = findExposure(older.body);
  if (secret && !findExposure(current.body)) extra.push(secret.split(':')[0]);
  return [...new Set(extra)];
}

/**
 * An older version that answers 2xx, judged against the documented one asked the same way (same
 * identity): refused there, it skips authentication (high); sensitive fields only it shows, it skips
 * the current field filter (high); the same content, an alias of the same code (info); different
 * content with the same protection, an older version still served (low).
 */
function judgeOlder(ctx: CheckContext, { documented, older }: OlderVersion, res: TargetResponse, current: TargetResponse, identity: Identity): CheckResult {
  const endpoint = `GET ${older}`;
  const name = `Older API version ${older}`;
  const opts = { endpoint, cwe: OLD_VERSION };
  const how = identity === 'none' ? 'without credentials' : `with the ${identity} identity's credentials`;
  if (refused(current))
    return fail(
      name,
      'high',
      ctx.evidence(
        res,
        `${older} answers ${res.status} ${how}, where the documented ${documented} answers ${current.status}: the older version skips its authentication. ${ctx.excerpt(res, 200)}`,
      ),
      opts,
    );
  const extra = answered(current) ? extraSensitive(ctx, res, current) : [];
  if (extra.length)
    return fail(
      name,
      'high',
      ctx.evidence(
        res,
        `${older} answers ${res.status} ${how} with ${extra.join(', ')}, which the documented ${documented} asked the same way does not show: the older version skips the current version's field filter. ${ctx.excerpt(res, 300)}`,
      ),
      opts,
    );
  if (sameContent(res, current))
    return fail(
      name,
      'info',
      ctx.evidence(
        res,
        `${older} answers ${how} exactly as the documented ${documented} does: an undocumented alias of the same code, with the same protection.`,
      ),
      opts,
    );
  return fail(
    name,
    'low',
    ctx.evidence(
      res,
      `${older} is still served next to the documented ${documented} (${how}, the same protection: the documented one answers ${current.status}). ${ctx.excerpt(res, 200)}`,
    ),
    opts,
  );
}

export const inventory: TargetCheck = {
  id: 'inventory',
  title: 'Improper inventory',
  description:
    "Requests well-known debug, administration and metadata paths (.env, .git/config, /debug, Spring actuator, server-status, phpinfo, /admin) at the mount point and under the API's own base path, and older sibling versions of documented paths (/api/v1/users when /api/v2/users is documented), without credentials, and reports those that answer with content that proves what they are (compared with a random path, so a catch-all is not reported). An older version is compared with the documented one asked the same way (without credentials, then with the scan's when both refuse): answering where the documented one refuses skips its authentication (high); showing sensitive fields the documented one filters out skips its field filter (high); the same content is an undocumented alias (info); different content with the same protection is an older version still served (low).",
  risk: 'Forgotten debug endpoints, configuration files and old API versions are outside the documentation and usually outside patching and monitoring: they leak secrets (database passwords, keys), internal state, or serve older code with flaws the current version fixed.',
  remediation:
    'Keep an inventory of every host, version and route the API serves; do not deploy .env or .git; disable debug and actuator endpoints in production or put them behind authentication on an internal network; retire old API versions or give them the same protections as the current one.',
  owasp: 'API9:2023',
  cwe: 'CWE-1059',
  references: [
    {
      title: 'OWASP REST Security Cheat Sheet: Management endpoints',
      url: 'https://cheatsheetseries.owasp.org/cheatsheets/REST_Security_Cheat_Sheet.html#management-endpoints',
    },
    {
      title: 'OWASP WSTG: Enumerate Infrastructure and Application Admin Interfaces',
      url: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/05-Enumerate_Infrastructure_and_Application_Admin_Interfaces',
    },
    {
      title: 'OWASP WSTG: Review Old Backup and Unreferenced Files for Sensitive Information',
      url: 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/04-Review_Old_Backup_and_Unreferenced_Files_for_Sensitive_Information',
    },
  ],
  scope: 'target',
  async run(ctx) {
    const root = new URL(ctx.targetUrl).origin + mountPath(ctx);
    // A catch-all that answers 200 for anything would make every path look exposed: compare with a random path.
    const control = await get(ctx, `${root}/${ctx.marker}-nonexistent`);
    const catchAll = (res: TargetResponse) => control.status === 200 && control.body === res.body;
    const out: CheckResult[] = [];
    // The well-known paths at the mount point and, when the API has its own base path, under it too.
    const prefix = basePrefix(ctx);
    const bases = prefix ? ['', prefix] : [''];
    for (const base of bases) {
      for (const c of WELL_KNOWN) {
        const path = base + c.path;
        const res = await get(ctx, root + path);
        const exposed = res.status === 200 && c.proof.test(res.body) && !catchAll(res);
        const endpoint = `GET ${path}`;
        out.push(
          exposed
            ? fail(`Exposed path ${path}`, c.severity, ctx.evidence(res, ctx.excerpt(res, 200)), { endpoint, cwe: c.cwe })
            : pass(`Exposed path ${path}`, { endpoint, cwe: c.cwe }),
        );
      }
    }
    for (const version of olderVersions(ctx)) {
      const { documented, older } = version;
      const endpoint = `GET ${older}`;
      const name = `Older API version ${older}`;
      const res = await get(ctx, root + older);
      if (answered(res) && !catchAll(res)) {
        out.push(judgeOlder(ctx, version, res, await get(ctx, root + documented), 'none'));
        continue;
      }
      // Refused without credentials, as the documented one may be: compared again with the scan's credentials.
      if (refused(res) && ctx.hasAuth) {
        const authed = await get(ctx, root + older, 'primary');
        if (answered(authed) && !(control.status === 200 && control.body === authed.body)) {
          out.push(judgeOlder(ctx, version, authed, await get(ctx, root + documented, 'primary'), 'primary'));
          continue;
        }
      }
      out.push(pass(name, { endpoint, cwe: OLD_VERSION }));
    }
    return out;
  },
};
