/** Realistic ScanReport fixtures for the report renderers. */
import { PNG } from 'pngjs';
import type { FunctionalReport, ScanReport } from '../../src/domain/results.js';
import { SEVERITIES, type SecurityOutcome, type Severity, type Task } from '../../src/domain/scan.js';

/** Hostile strings: what a scanned target can put into names, evidence, errors and URLs. */
export const HOSTILE = {
  script: '<script>alert("xss")</script>',
  attribute: '"><img src=x onerror=alert(1)>',
  singleQuote: "' onmouseover='alert(1)",
  styleBreak: '</style><script>alert(2)</script>',
  svg: '<svg onload=alert(3)>',
  remote: '<img src="https://evil.example/pixel.gif"><link rel="stylesheet" href="https://evil.example/x.css">',
  cssUrl: '<div style="background:url(https://evil.example/bg.png)">',
  comment: '--><script>alert(4)</script><!--',
  controls: 'nul\u0000bel\u0007esc\u001b',
} as const;

function countSeverities(tasks: Task[]): Record<Severity, number> {
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const t of tasks) if (t.status === 'failed' && t.severity) counts[t.severity]++;
  return counts;
}

function totals(tasks: Task[]) {
  const failed = tasks.filter((t) => t.status === 'failed').length;
  return { passed: tasks.length - failed, failed, total: tasks.length };
}

const http = (method: string, path: string, status: number, body: string) =>
  `${method} ${path} HTTP/1.1\nHost: api.shop.example\nAuthorization: Bearer ****\n\nHTTP/1.1 ${status}\nContent-Type: application/json\n\n${body}`;

/** A security scan: 21 tasks over every severity, passed and failed, with tricky text. */
export function securityReport(): ScanReport {
  const tasks: Task[] = [
    {
      task_id: 'tsk_01',
      kind: 'security',
      name: 'BOLA: order of another user readable',
      status: 'failed',
      severity: 'critical',
      check: 'bola',
      owasp: 'API1:2023',
      cwe: 'CWE-639',
      endpoint: 'GET /orders/{id}',
      parameter: 'id',
      evidence: http('GET', '/orders/1002', 200, '{"id":1002,"owner":"user-b","total":"€1,299.00"}'),
    },
    {
      task_id: 'tsk_02',
      kind: 'security',
      name: 'SQL injection in search "q"',
      status: 'failed',
      severity: 'critical',
      check: 'sqli',
      owasp: 'API8:2023',
      cwe: 'CWE-89',
      endpoint: 'GET /products',
      parameter: 'q',
      evidence: http(
        'GET',
        "/products?q='%20OR%201=1--",
        500,
        "ERROR: syntax error at or near \"OR\"\r\nLINE 1: SELECT * FROM products WHERE name = '' OR 1=1--'",
      ),
    },
    {
      task_id: 'tsk_03',
      kind: 'security',
      name: 'Broken authentication: token accepted after logout',
      status: 'failed',
      severity: 'high',
      check: 'token-revocation',
      owasp: 'API2:2023',
      cwe: 'CWE-613',
      endpoint: 'GET /me',
      evidence: http('GET', '/me', 200, '{"email":"a@shop.example"}'),
    },
    {
      task_id: 'tsk_04',
      kind: 'security',
      name: 'Mass assignment of "role"',
      status: 'failed',
      severity: 'high',
      check: 'mass-assignment',
      owasp: 'API3:2023',
      cwe: 'CWE-915',
      endpoint: 'PATCH /users/{id}',
      parameter: 'role',
      evidence: http('PATCH', '/users/7', 200, '{"id":7,"role":"admin"}'),
    },
    {
      task_id: 'tsk_05',
      kind: 'security',
      name: 'Reflected payload in error page',
      status: 'failed',
      severity: 'high',
      check: 'reflection',
      owasp: 'API8:2023',
      cwe: 'CWE-79',
      endpoint: 'GET /search',
      parameter: 'term',
      evidence: http('GET', '/search?term=%3Cscript%3E', 400, `{"error":"no results for ${HOSTILE.script}"}`),
    },
    {
      task_id: 'tsk_06',
      kind: 'security',
      name: '=HYPERLINK("https://evil.example","click") formula in name',
      status: 'failed',
      severity: 'medium',
      check: 'rate-limit',
      owasp: 'API4:2023',
      cwe: 'CWE-770',
      endpoint: 'POST /login',
      evidence: "=cmd|' /C calc'!A0\n200 responses for 500 requests in 10 s",
    },
    {
      task_id: 'tsk_07',
      kind: 'security',
      name: 'Unbounded page size',
      status: 'failed',
      severity: 'medium',
      check: 'resource-consumption',
      owasp: 'API4:2023',
      cwe: 'CWE-770',
      endpoint: 'GET /products',
      parameter: 'per_page',
      evidence: '+per_page=1000000 returned 1000000 rows, 412 MB',
    },
    {
      task_id: 'tsk_08',
      kind: 'security',
      name: 'Admin function reachable by a user',
      status: 'failed',
      severity: 'medium',
      check: 'bfla',
      owasp: 'API5:2023',
      cwe: 'CWE-285',
      endpoint: 'DELETE /admin/users/{id}',
      parameter: 'id',
      evidence: '-1 rows affected; @SUM(1+1) in body',
    },
    {
      task_id: 'tsk_09',
      kind: 'security',
      name: 'Verbose server header',
      status: 'failed',
      severity: 'low',
      check: 'misconfiguration',
      owasp: 'API8:2023',
      cwe: 'CWE-200',
      endpoint: 'GET /',
      evidence: '\tServer: nginx/1.18.0 (Ubuntu)',
    },
    {
      task_id: 'tsk_10',
      kind: 'security',
      name: 'CORS allows any origin, with credentials',
      status: 'failed',
      severity: 'low',
      check: 'cors',
      owasp: 'API8:2023',
      cwe: 'CWE-942',
      endpoint: 'OPTIONS /orders',
      evidence: '\rAccess-Control-Allow-Origin: *',
    },
    {
      task_id: 'tsk_11',
      kind: 'security',
      name: 'Deprecated API version still served — /v1 ✓ 日本語',
      status: 'failed',
      severity: 'info',
      check: 'inventory',
      owasp: 'API9:2023',
      cwe: 'CWE-1059',
      endpoint: 'GET /v1/products',
      evidence: 'HTTP/1.1 200 OK 🚨',
    },
    {
      task_id: 'tsk_12',
      kind: 'security',
      name: 'SSRF via webhook URL',
      status: 'passed',
      severity: 'critical',
      check: 'ssrf',
      owasp: 'API7:2023',
      cwe: 'CWE-918',
      endpoint: 'POST /webhooks',
      parameter: 'url',
      evidence: 'Requests to 169.254.169.254 were refused (422)',
    },
    {
      task_id: 'tsk_13',
      kind: 'security',
      name: 'BOLA on invoices',
      status: 'passed',
      severity: 'critical',
      check: 'bola',
      owasp: 'API1:2023',
      cwe: 'CWE-639',
      endpoint: 'GET /invoices/{id}',
      parameter: 'id',
      invented_values: true,
    },
    {
      task_id: 'tsk_14',
      kind: 'security',
      name: 'JWT "none" algorithm',
      status: 'passed',
      severity: 'high',
      check: 'jwt-none',
      owasp: 'API2:2023',
      cwe: 'CWE-347',
      endpoint: 'GET /me',
      evidence: 'Token with alg=none refused: 401',
    },
    {
      task_id: 'tsk_15',
      kind: 'security',
      name: 'Excessive data exposure in /users',
      status: 'passed',
      severity: 'high',
      check: 'data-exposure',
      owasp: 'API3:2023',
      cwe: 'CWE-213',
      endpoint: 'GET /users',
    },
    {
      task_id: 'tsk_16',
      kind: 'security',
      name: 'Business flow: unlimited coupon redemption',
      status: 'passed',
      severity: 'medium',
      check: 'business-flow',
      owasp: 'API6:2023',
      cwe: 'CWE-799',
      endpoint: 'POST /coupons/redeem',
      parameter: 'code',
    },
    {
      task_id: 'tsk_17',
      kind: 'security',
      name: 'Security headers, "strict"',
      status: 'passed',
      severity: 'low',
      check: 'headers',
      owasp: 'API8:2023',
      cwe: 'CWE-693',
      endpoint: 'GET /',
    },
    {
      task_id: 'tsk_18',
      kind: 'security',
      name: 'TLS only, HSTS',
      status: 'passed',
      severity: 'low',
      check: 'tls',
      owasp: 'API8:2023',
      cwe: 'CWE-319',
      endpoint: 'GET /',
    },
    {
      task_id: 'tsk_19',
      kind: 'security',
      name: 'Unsafe consumption of third-party API',
      status: 'passed',
      severity: 'info',
      check: 'unsafe-consumption',
      owasp: 'API10:2023',
      cwe: 'CWE-20',
      endpoint: 'POST /shipping/quote',
    },
    {
      task_id: 'tsk_21',
      kind: 'security',
      name: 'Security headers missing on every operation',
      status: 'failed',
      severity: 'low',
      check: 'headers',
      owasp: 'API8:2023',
      cwe: 'CWE-693',
      endpoints: ['GET /orders', 'GET /orders/{id}', 'POST /orders', `GET /echo/${HOSTILE.script}`],
      evidence: 'GET /orders -> 200 without X-Content-Type-Options',
    },
    {
      task_id: 'tsk_20',
      kind: 'security',
      name: `Hostile name ${HOSTILE.script} ${HOSTILE.attribute}`,
      status: 'failed',
      severity: 'info',
      check: 'fuzz',
      owasp: 'API8:2023',
      cwe: 'CWE-116',
      endpoint: `GET /echo/${HOSTILE.singleQuote}`,
      parameter: HOSTILE.svg,
      evidence: [HOSTILE.styleBreak, HOSTILE.remote, HOSTILE.cssUrl, HOSTILE.comment, HOSTILE.controls, 'multi\r\nline, with "quotes"'].join('\n'),
    },
  ];
  return {
    scan_id: 'scn_Sec7Kq2mB9xPz0aL',
    tenant_id: 'tnt_acme',
    mode: 'security',
    status: 'completed',
    url: 'https://api.shop.example/v2',
    spec_url: 'https://api.shop.example/openapi.json',
    created_at: '2026-11-22T10:00:00.000Z',
    completed_at: '2026-11-22T10:04:37.250Z',
    elapsed_seconds: 277.25,
    agent_count: 6,
    ...totals(tasks),
    severity_counts: countSeverities(tasks),
    fail_on: 'high',
    threshold_reached: true,
    failure_reason: null,
    tasks,
    functional: null,
    security: securityOutcome(),
  };
}

const owasp = (n: number, slug: string) => ({ id: `API${n}:2023`, url: `https://owasp.org/API-Security/editions/2023/en/0xa${n}-${slug}/` });
const cwe = (n: number) => ({ id: `CWE-${n}`, url: `https://cwe.mitre.org/data/definitions/${n}.html` });

/** Warnings, coverage and a catalogue for the checks of securityReport(), hostile text included. */
export function securityOutcome(): SecurityOutcome {
  return {
    warnings: ['3 of 29 operations answered 2xx: is the base URL right?', `Target said ${HOSTILE.script}`],
    coverage: {
      operations: [
        { endpoint: 'GET /orders/{id}', statuses: [200, 404], reached_2xx: { primary: true, secondary: true, anonymous: false }, requests: 14 },
        {
          endpoint: 'GET /invoices/{id}',
          statuses: [404],
          reached_2xx: { primary: false, secondary: false, anonymous: false },
          requests: 6,
          invented_values: true,
        },
        {
          endpoint: 'POST /admin/reset',
          statuses: [],
          reached_2xx: { primary: false, secondary: null, anonymous: false },
          requests: 0,
          skipped: 'safe mode: destructive',
        },
        { endpoint: `GET /echo/${HOSTILE.attribute}`, statuses: [0, 500], reached_2xx: { primary: false, secondary: null, anonymous: false }, requests: 2 },
      ],
      checks: [
        {
          check: 'bola',
          title: 'Broken object level authorization',
          ran: 2,
          not_run: [{ reason: 'no resource found', count: 1, endpoints: ['GET /users/{name}'] }],
        },
        { check: 'jwt-none', title: 'JWT alg none', ran: 0, not_run: [{ reason: 'no JWT seen', count: 29, endpoints: [] }] },
        { check: 'headers', title: 'Security headers', ran: 1, not_run: [] },
      ],
      operations_2xx: 3,
      operations_total: 29,
      resources_created: 2,
      resources_deleted: 1,
    },
    checks: [
      {
        id: 'bola',
        title: 'Broken object level authorization',
        description: 'A resource the first identity owns is read, changed and deleted with the second identity.',
        risk: "Any user reads and changes other users' data by changing an id.",
        remediation: 'Check on every request that the caller may act on the object the id names.',
        owasp: owasp(1, 'broken-object-level-authorization'),
        cwe: cwe(639),
        references: [{ title: 'OWASP Authorization Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Authorization_Cheat_Sheet.html' }],
      },
      {
        id: 'sqli',
        title: 'SQL injection',
        description: 'Parameters are sent SQL metacharacters and boolean and time-based payloads.',
        risk: 'Reading or changing the whole database.',
        remediation: `Use parameterised queries; never build SQL from input. ${HOSTILE.styleBreak}`,
        owasp: owasp(8, 'security-misconfiguration'),
        cwe: cwe(89),
        references: [{ title: 'Hostile reference', url: 'javascript:alert(1)' }],
      },
      {
        id: 'headers',
        title: 'Security headers',
        description: 'Responses are checked for X-Content-Type-Options, Cache-Control and a restrictive CSP.',
        risk: 'Browsers sniff content types and caches keep private answers.',
        remediation: 'Send X-Content-Type-Options: nosniff and Cache-Control: no-store on API responses.',
        owasp: owasp(8, 'security-misconfiguration'),
        cwe: cwe(693),
        references: [],
      },
      {
        id: 'jwt-none',
        title: 'JWT alg none',
        description: 'A token with alg none is sent.',
        risk: 'Anyone forges tokens.',
        remediation: 'Pin the accepted algorithms.',
        owasp: owasp(2, 'broken-authentication'),
        cwe: cwe(347),
        references: [],
      },
    ],
  };
}

const signed = (id: string) => `https://vigil.example/api/v1/artifacts/${id}?expires=1795000000&sig=5f1d2c`;

export function functionalReport(): FunctionalReport {
  return {
    visual_regression: {
      comparisons: 3,
      diffs_detected: 1,
      diff_threshold_percent: 0.5,
      pages: [
        {
          page_url: 'https://shop.example/',
          viewport: '1280x800',
          diff_detected: false,
          diff_percent: 0.02,
          screenshot_before: signed('art_b1'),
          screenshot_after: signed('art_a1'),
          diff_image: null,
          diff_thumbnail: null,
          baseline_created: false,
          regions: [{ x: 40, y: 300, width: 6, height: 9, changed_pixels: 28 }],
          min_region_px: 150,
          unstable: false,
          moving_regions: [],
          hint: null,
        },
        {
          page_url: 'https://shop.example/cart',
          viewport: '1280x800',
          diff_detected: true,
          diff_percent: 7.31,
          screenshot_before: signed('art_b2'),
          screenshot_after: signed('art_a2'),
          diff_image: signed('art_d2'),
          diff_thumbnail: signed('art_t2'),
          baseline_created: false,
          regions: [
            { x: 465, y: 104, width: 116, height: 33, changed_pixels: 1108 },
            { x: 40, y: 620, width: 1200, height: 400, changed_pixels: 70_000 },
          ].sort((p, q) => q.changed_pixels - p.changed_pixels),
          min_region_px: 150,
          unstable: false,
          moving_regions: [],
          hint: null,
        },
        {
          page_url: `https://shop.example/search?q=${HOSTILE.script}`,
          viewport: '1280x800',
          diff_detected: false,
          diff_percent: 0,
          screenshot_before: signed('art_b3'),
          screenshot_after: signed('art_a3'),
          diff_image: null,
          diff_thumbnail: null,
          baseline_created: true,
          regions: [],
          min_region_px: 150,
          unstable: true,
          moving_regions: [{ x: 40, y: 80, width: 1200, height: 320, selector: `#carousel${HOSTILE.script}` }],
          hint: `content keeps changing between screenshots (1200x320 at 40,80); mask it with options.mask: ["#carousel${HOSTILE.script}"]`,
        },
      ],
    },
    accessibility: {
      pages_scanned: 3,
      total_violations: 3,
      compliance_score: 82.5,
      wcag_level: 'WCAG 2.1 AA',
      violations: [
        {
          rule: 'color-contrast',
          impact: 'serious',
          wcag: '1.4.3',
          page_url: 'https://shop.example/',
          elements_affected: 12,
          description: 'Elements must meet minimum color contrast ratio thresholds',
          help_url: 'https://dequeuniversity.com/rules/axe/4.10/color-contrast',
        },
        {
          rule: 'image-alt',
          impact: 'critical',
          wcag: '1.1.1',
          page_url: 'https://shop.example/cart',
          elements_affected: 2,
          description: `Images must have alternative text ${HOSTILE.attribute}`,
          help_url: 'https://dequeuniversity.com/rules/axe/4.10/image-alt',
          nodes: [
            {
              target: 'main > img.product',
              html: `<img class="product" src="/p.jpg" data-x="${HOSTILE.attribute}">`,
              failure_summary: 'Fix any of the following:\n  Element does not have an alt attribute',
            },
            {
              target: `#chat >>> img[title="${HOSTILE.singleQuote}"]`,
              html: HOSTILE.script,
              failure_summary: 'Fix any of the following:\n  Element does not have an alt attribute',
            },
          ],
        },
        {
          rule: 'region',
          impact: 'moderate',
          wcag: 'best-practice',
          page_url: 'https://shop.example/cart',
          elements_affected: 1,
          description: 'All page content should be contained by landmarks',
          help_url: 'javascript:alert(1)',
        },
      ],
      total_needs_review: 1,
      needs_review: [
        {
          rule: 'color-contrast',
          impact: 'serious',
          wcag: '1.4.3',
          page_url: 'https://shop.example/',
          elements_affected: 1,
          description: 'Elements must meet minimum color contrast ratio thresholds',
          help_url: 'https://dequeuniversity.com/rules/axe/4.14/color-contrast',
          nodes: [
            {
              target: '.hero > h1',
              html: `<h1>${HOSTILE.svg}</h1>`,
              failure_summary: "Fix any of the following:\n  Element's background color could not be determined due to a background image",
            },
          ],
        },
      ],
      engine: { name: 'axe-core', version: '4.14.1' },
      pages: [
        { page_url: 'https://shop.example/', violations: 1, needs_review: 1, compliance_score: 91 },
        { page_url: 'https://shop.example/cart', violations: 2, needs_review: 0, compliance_score: 74 },
      ],
    },
    performance: {
      pages_tested: 2,
      performance_score: 71,
      pages: [
        {
          page_url: 'https://shop.example/',
          performance_score: 88,
          lcp_ms: 1820,
          fid_ms: 12,
          cls: 0.041,
          ttfb_ms: 210,
          fcp_ms: 940,
          tbt_ms: 120,
          si_ms: 1500,
          tti_ms: 2300,
          rating: 'good',
        },
        {
          page_url: 'https://shop.example/cart',
          performance_score: 54,
          lcp_ms: 4380,
          fid_ms: 310,
          cls: 0.27,
          ttfb_ms: 820,
          fcp_ms: 2100,
          tbt_ms: 740,
          si_ms: 3900,
          tti_ms: 6200,
          rating: 'poor',
        },
      ],
    },
  };
}

/** A full scan: security tasks plus functional tasks and the functional report. */
export function fullReport(): ScanReport {
  const security = securityReport().tasks.slice(0, 6);
  const functionalTasks: Task[] = [
    { task_id: 'tsk_f1', kind: 'functional', name: 'Visual regression: /', status: 'passed', duration_ms: 2310 },
    {
      task_id: 'tsk_f2',
      kind: 'functional',
      name: 'Visual regression: /cart',
      status: 'failed',
      duration_ms: 2875,
      error: '7.31% of pixels differ (threshold 0.5%)',
    },
    {
      task_id: 'tsk_f3',
      kind: 'functional',
      name: 'Accessibility: /cart',
      status: 'failed',
      duration_ms: 1402,
      error: `2 critical violations\n${HOSTILE.script}`,
    },
    { task_id: 'tsk_f4', kind: 'functional', name: 'Performance: /', status: 'passed', duration_ms: 6120 },
  ];
  const tasks = [...security, ...functionalTasks];
  return {
    scan_id: 'scn_Full3Hw8Rt6Yv1cE',
    tenant_id: 'tnt_acme',
    mode: 'full',
    status: 'completed',
    url: 'https://shop.example',
    spec_url: null,
    created_at: '2026-11-22T11:00:00.000Z',
    completed_at: '2026-11-22T11:12:05.000Z',
    elapsed_seconds: 725,
    agent_count: 4,
    ...totals(tasks),
    severity_counts: countSeverities(tasks),
    fail_on: 'critical',
    threshold_reached: true,
    failure_reason: null,
    tasks,
    functional: functionalReport(),
    security: securityOutcome(),
  };
}

/** A scan that failed before any task ran. */
export function failedReport(): ScanReport {
  return {
    scan_id: 'scn_Fail0Zx4Np5Qr8sT',
    tenant_id: 'tnt_globex',
    mode: 'security',
    status: 'failed',
    url: 'https://unreachable.example',
    spec_url: null,
    created_at: '2026-11-22T12:00:00.000Z',
    completed_at: '2026-11-22T12:00:31.000Z',
    elapsed_seconds: 31,
    agent_count: 0,
    passed: 0,
    failed: 0,
    total: 0,
    severity_counts: { critical: 0, high: 0, medium: 0, low: 0, info: 0 },
    fail_on: null,
    threshold_reached: false,
    failure_reason: `Target unreachable: connect ECONNREFUSED 203.0.113.7:443 ${HOSTILE.script}`,
    tasks: [],
    functional: null,
    security: null,
  };
}

/** A solid PNG (with a stripe, so before and after differ) as a data: URI. */
export function pngDataUri(width: number, height: number, rgb: [number, number, number], stripe?: [number, number, number]): string {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const c = stripe && y >= height / 3 && y < (2 * height) / 3 ? stripe : rgb;
      png.data[i] = c[0];
      png.data[i + 1] = c[1];
      png.data[i + 2] = c[2];
      png.data[i + 3] = 255;
    }
  }
  return `data:image/png;base64,${PNG.sync.write(png).toString('base64')}`;
}

/** A full scan whose screenshots and diff images are embedded (as the HTML export route makes them). */
export function embeddedFullReport(): ScanReport {
  const report = fullReport();
  const [home, cart, search] = report.functional!.visual_regression.pages;
  Object.assign(home!, { screenshot_before: pngDataUri(120, 90, [250, 250, 250]), screenshot_after: pngDataUri(120, 90, [250, 250, 250]) });
  Object.assign(cart!, {
    screenshot_before: pngDataUri(160, 120, [255, 255, 255]),
    screenshot_after: pngDataUri(160, 120, [255, 255, 255], [200, 30, 30]),
    diff_image: pngDataUri(160, 120, [235, 235, 235], [255, 0, 255]),
  });
  // The baseline was set by this scan: one screenshot, no slider.
  Object.assign(search!, { screenshot_before: pngDataUri(100, 80, [240, 240, 255]), screenshot_after: pngDataUri(100, 80, [240, 240, 255]) });
  return report;
}
