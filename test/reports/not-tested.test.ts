/**
 * "Say it at the top": a scan with operations never reached, a target that went down, a lost identity
 * and checks not tested leads with that in the results body, the HTML report (before the summary and
 * the findings), SARIF's notifications and properties and JUnit's properties and system-out; a fully
 * tested scan shows none of it.
 */
import { readFileSync } from 'node:fs';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { ScanReport } from '../../src/domain/results.js';
import type { SecurityOutcome } from '../../src/domain/scan.js';
import { renderHtmlReport } from '../../src/reports/html.js';
import { toJunit } from '../../src/reports/junit.js';
import type { ReportModel } from '../../src/reports/model.js';
import { NOT_RUN_LABELS, notTestedLines, notTestedSummary } from '../../src/reports/not-tested.js';
import { resultsBodyOf } from '../../src/reports/results-body.js';
import { toSarif } from '../../src/reports/sarif.js';
import { functionalReport, securityOutcome, securityReport } from './fixtures.js';

const schema = JSON.parse(readFileSync(new URL('../fixtures/schemas/sarif-schema-2.1.0.json', import.meta.url), 'utf8'));
const ajv = new AjvDraft04Module.default({ allErrors: true, strict: false, unicodeRegExp: false });
addFormatsModule.default(ajv);
const validateSarif = ajv.compile(schema);

const DOWN_AT = '2026-11-22T10:00:17.000Z';
const LOST_AT = '2026-11-22T10:00:09.000Z';
const TARGET_DOWN = 'the target stopped answering at 2026-11-22T10:00:17.000Z (after resource-consumption on POST /search) and did not recover';
const NEVER_AUTHORISED = 'never authorised: every attempt answered 401/403 and no identity reached the operation';

/** A scan that went wrong: the target went down, the first identity was lost, admin operations never authorised. */
function untested(): SecurityOutcome {
  const base = securityOutcome();
  const reached = { primary: true, secondary: true, anonymous: false };
  const never = { primary: false, secondary: false, anonymous: false };
  return {
    ...base,
    target_down: { at: DOWN_AT, check: 'resource-consumption', endpoint: 'POST /search', waited_seconds: 30 },
    coverage: {
      operations: [
        { endpoint: 'GET /orders', statuses: [200], reached_2xx: reached, requests: 20 },
        { endpoint: 'POST /search', statuses: [200, 0], reached_2xx: reached, requests: 8 },
        { endpoint: 'GET /admin/users', statuses: [401, 403], reached_2xx: never, requests: 12 },
        { endpoint: 'DELETE /admin/users/{id}', statuses: [403], reached_2xx: never, requests: 4 },
        { endpoint: 'PUT /orders/{id}', statuses: [500], reached_2xx: never, requests: 3 },
        { endpoint: 'GET /reports', statuses: [], reached_2xx: never, requests: 0 },
        {
          endpoint: 'POST /admin/reset',
          statuses: [],
          reached_2xx: { primary: false, secondary: false, anonymous: false },
          requests: 0,
          skipped: 'safe mode: destructive',
        },
      ],
      checks: [
        {
          check: 'sqli',
          title: 'SQL injection',
          ran: 2,
          not_run: [
            { reason: TARGET_DOWN, reason_code: 'target_down', count: 2, endpoints: ['GET /reports', 'PUT /orders/{id}'] },
            { reason: 'not applicable', reason_code: 'not_applicable', count: 1, endpoints: ['POST /admin/reset'] },
          ],
        },
        {
          check: 'bola',
          title: 'Broken object level authorization',
          ran: 1,
          not_run: [
            { reason: NEVER_AUTHORISED, reason_code: 'never_authorised', count: 2, endpoints: ['GET /admin/users', 'DELETE /admin/users/{id}'] },
            { reason: TARGET_DOWN, reason_code: 'target_down', count: 1, endpoints: ['GET /reports'] },
          ],
        },
        { check: 'headers', title: 'Security headers', ran: 1, not_run: [] },
      ],
      operations_2xx: 2,
      operations_total: 6,
      resources_created: 2,
      resources_deleted: 0,
      identities: [
        {
          identity: 'primary',
          verified: true,
          verified_on: 'GET /me',
          lost_at: LOST_AT,
          lost_reason: 'a run of 401/403 from GET /orders/{id}, refused on GET /me too',
        },
        { identity: 'secondary', verified: false, unverified: 'refused where authentication is needed (GET /me answered 401)' },
      ],
    },
  };
}

/** Every operation reached, every check that applies ran (one that does not apply is no gap). */
function fullyTested(): SecurityOutcome {
  const base = securityOutcome();
  return {
    ...base,
    warnings: [],
    coverage: {
      operations: [{ endpoint: 'GET /orders/{id}', statuses: [200, 404], reached_2xx: { primary: true, secondary: true, anonymous: false }, requests: 14 }],
      checks: [
        { check: 'bola', title: 'Broken object level authorization', ran: 1, not_run: [] },
        {
          check: 'sqli',
          title: 'SQL injection',
          ran: 0,
          not_run: [{ reason: 'not applicable', reason_code: 'not_applicable', count: 1, endpoints: ['GET /orders/{id}'] }],
        },
      ],
      operations_2xx: 1,
      operations_total: 1,
      resources_created: 0,
      resources_deleted: 0,
    },
  };
}

function report(security: SecurityOutcome): ScanReport {
  return { ...securityReport(), warnings: security.warnings, security } as ScanReport;
}

function model(r: ScanReport): ReportModel {
  return {
    ...r,
    progress_percent: 100,
    functional_summary: {
      visual_regression: { comparisons: 0, diffs_detected: 0, diff_threshold_percent: 0.1 },
      accessibility: { pages_scanned: 0, violations: 0, compliance_score: null },
      performance: { pages_tested: 0, performance_score: null },
      warnings: [],
    },
  };
}

describe('the not-tested summary', () => {
  const summary = notTestedSummary(report(untested()))!;

  it('counts what was never reached and not tested, from the coverage, in one headline', () => {
    expect(summary.everything_tested).toBe(false);
    expect(summary.headline).toBe('4 of 6 operations never answered 2xx to any identity; 1 operation was skipped; 5 of 9 check runs were not tested.');
    expect(summary.operations).toMatchObject({ total: 6, reached: 2, never_reached: 4, skipped: 1 });
    expect(summary.checks).toMatchObject({ runs: 9, not_tested: 5, not_applicable: 1 });
  });

  it('gives the scan-level causes: the target down and when, the identity lost and when, the identity refused', () => {
    expect(summary.causes.map((c) => [c.kind, c.at])).toEqual([
      ['target_down', DOWN_AT],
      ['identity_lost', LOST_AT],
      ['identity_refused', null],
    ]);
    expect(summary.causes[0]!.text).toContain("after the resource-consumption check's probe on POST /search");
    expect(summary.causes[1]!.text).toMatch(/^The first identity \(auth\) was lost at 2026-11-22T10:00:09.000Z/);
    expect(summary.causes[2]!.text).toContain('The second identity (auth.secondary) could not be verified');
  });

  it('groups operations by what they answered, and checks by reason code with their operations', () => {
    expect(summary.operations.reasons).toEqual([
      {
        reason_code: 'never_authorised',
        reason: 'never authorised: answered only 401/403',
        count: 2,
        endpoints: ['GET /admin/users', 'DELETE /admin/users/{id}'],
      },
      { reason_code: 'server_error', reason: 'answered only 5xx (500)', count: 1, endpoints: ['PUT /orders/{id}'] },
      { reason_code: 'not_reached', reason: 'no request was sent to it', count: 1, endpoints: ['GET /reports'] },
      { reason_code: 'safe_mode', reason: 'skipped: safe mode: destructive', count: 1, endpoints: ['POST /admin/reset'] },
    ]);
    expect(summary.checks.reasons).toEqual([
      {
        reason_code: 'target_down',
        reason: TARGET_DOWN,
        count: 3,
        checks: [
          { check: 'sqli', title: 'SQL injection', reason: TARGET_DOWN, count: 2, endpoints: ['GET /reports', 'PUT /orders/{id}'] },
          { check: 'bola', title: 'Broken object level authorization', reason: TARGET_DOWN, count: 1, endpoints: ['GET /reports'] },
        ],
      },
      {
        reason_code: 'never_authorised',
        reason: NEVER_AUTHORISED,
        count: 2,
        checks: [
          {
            check: 'bola',
            title: 'Broken object level authorization',
            reason: NEVER_AUTHORISED,
            count: 2,
            endpoints: ['GET /admin/users', 'DELETE /admin/users/{id}'],
          },
        ],
      },
    ]);
  });

  it("groups by the engine's code, not its text: one group per code, each check run keeping its own text", () => {
    const security = untested();
    security.coverage.checks = [
      {
        check: 'mass-assignment',
        title: 'Mass assignment',
        ran: 0,
        not_run: [
          {
            reason: 'every attempt answered 422: the body could not be made valid',
            reason_code: 'validation_refused',
            count: 2,
            endpoints: ['POST /users', 'PUT /users/{id}'],
          },
          { reason: 'every attempt answered 400: the body could not be made valid', reason_code: 'validation_refused', count: 1, endpoints: ['POST /orders'] },
          // A text that reads like "does not apply" is not tested when the engine says so (and the reverse).
          { reason: 'no JSON or form body', reason_code: 'prerequisite_missing', count: 1, endpoints: ['POST /upload'] },
          { reason: 'every privileged property is declared writable', reason_code: 'not_applicable', count: 1, endpoints: ['PATCH /me'] },
        ],
      },
    ];
    const s = notTestedSummary({ security })!;
    expect(s.checks.not_applicable).toBe(1);
    expect(s.checks.not_tested).toBe(4);
    expect(s.checks.reasons.map((r) => [r.reason_code, r.count])).toEqual([
      ['validation_refused', 3],
      ['prerequisite_missing', 1],
    ]);
    const refused = s.checks.reasons[0]!;
    expect(refused.reason).toBe(NOT_RUN_LABELS.validation_refused);
    expect(refused.checks.map((c) => [c.reason, c.count])).toEqual([
      ['every attempt answered 422: the body could not be made valid', 2],
      ['every attempt answered 400: the body could not be made valid', 1],
    ]);
    expect(s.checks.reasons[1]!.reason).toBe('no JSON or form body');
  });

  it('results stored before the codes: the texts of that time that meant "does not apply" are counted apart, the rest is unclassified', () => {
    const n = (reason: string) => ({ reason, count: 1, endpoints: ['GET /x'] });
    const inapplicable = [
      'no string parameter or body field',
      'no redirect-like parameter',
      'no JSON or form body',
      'declares no security',
      'a login',
      'public by design (security: [])',
      'not a read (GET) operation',
    ];
    const gaps = [
      'no second identity (auth.secondary)',
      'no JWT seen',
      'no resource of the first identity found',
      'no operation reads the created resource back',
      NEVER_AUTHORISED,
      TARGET_DOWN,
      'safe mode',
      'excluded',
    ];
    const security = untested();
    security.coverage.checks = [{ check: 'sqli', title: 'SQL injection', ran: 1, not_run: [...inapplicable, ...gaps].map(n) }];
    const s = notTestedSummary({ security })!;
    expect(s.checks.not_applicable).toBe(inapplicable.length);
    expect(s.checks.reasons).toHaveLength(1);
    expect(s.checks.reasons[0]).toMatchObject({ reason_code: 'unclassified', count: gaps.length });
    expect(s.checks.reasons[0]!.checks.map((c) => c.reason).sort()).toEqual([...gaps].sort());
  });

  it('is empty for a fully tested scan and null without a security section', () => {
    const clean = notTestedSummary(report(fullyTested()))!;
    expect(clean.everything_tested).toBe(true);
    expect(clean.headline).toBe('Everything was tested: all 1 operation answered 2xx and every check that applies ran.');
    expect(notTestedLines(clean)).toEqual([]);
    expect(notTestedSummary({ security: null })).toBeNull();
  });
});

describe('the results body', () => {
  it('carries not_tested at the top level for a security scan, before the tasks', () => {
    const body = resultsBodyOf(model(report(untested())));
    expect(body.not_tested).toEqual(notTestedSummary(report(untested())));
    const keys = Object.keys(body);
    expect(keys.indexOf('not_tested')).toBeLessThan(keys.indexOf('tasks'));
  });

  it('says everything was tested for a fully tested scan, and null for a functional one', () => {
    expect(resultsBodyOf(model(report(fullyTested()))).not_tested).toMatchObject({
      everything_tested: true,
      causes: [],
      operations: { reasons: [] },
      checks: { reasons: [] },
    });
    const functional = { ...securityReport(), mode: 'functional', tasks: [], security: null, functional: functionalReport() } as ScanReport;
    expect(resultsBodyOf(model(functional)).not_tested).toBeNull();
  });
});

describe('the HTML report', () => {
  it('leads with a "Not tested" section: after the header, before the summary and the findings', () => {
    const html = renderHtmlReport(report(untested()));
    const at = (needle: string) => {
      const i = html.indexOf(needle);
      expect(i, needle).toBeGreaterThan(0);
      return i;
    };
    const section = at('<section id="not-tested"');
    expect(at('</header>')).toBeLessThan(section);
    expect(section).toBeLessThan(at('class="banner warn security-warnings"'));
    expect(section).toBeLessThan(at('<section id="summary"'));
    expect(section).toBeLessThan(at('<section id="findings"'));
    expect(section).toBeLessThan(at('<section id="coverage"'));
    expect(at('<a href="#not-tested">Not tested</a>')).toBeLessThan(at('<a href="#summary">Summary</a>'));
    const part = html.slice(section, html.indexOf('</section>', section));
    expect(part).toContain('4 of 6 operations never answered 2xx to any identity; 1 operation was skipped; 5 of 9 check runs were not tested.');
    expect(part).toContain('data-cause="target_down"');
    expect(part).toContain('data-cause="identity_lost"');
    expect(part).toContain('<tr data-reason-code="never_authorised" data-reason="never authorised: answered only 401/403" data-count="2">');
    expect(part).toContain(`<tr data-reason-code="target_down" data-reason="${TARGET_DOWN}" data-count="3">`);
    expect(part).toContain('<code>DELETE /admin/users/{id}</code>');
  });

  it('has no such section when everything was tested, nor for a scan without a security section', () => {
    for (const r of [report(fullyTested()), { ...securityReport(), security: null } as ScanReport]) {
      const html = renderHtmlReport(r);
      expect(html).not.toContain('id="not-tested"');
      expect(html).not.toContain('href="#not-tested"');
    }
  });
});

describe('SARIF', () => {
  it("the invocation's first notifications say what was not tested, and its properties carry not_tested", () => {
    const body = resultsBodyOf(model(report(untested())));
    const sarif = toSarif(body);
    expect(validateSarif(sarif), JSON.stringify(validateSarif.errors?.slice(0, 5))).toBe(true);
    const invocation = sarif.runs[0].invocations[0];
    const texts: string[] = invocation.toolExecutionNotifications.map((n: { message: { text: string } }) => n.message.text);
    const lines = notTestedLines(notTestedSummary(report(untested())));
    expect(texts.slice(0, lines.length)).toEqual(lines);
    expect(texts[0]).toBe('Not tested: 4 of 6 operations never answered 2xx to any identity; 1 operation was skipped; 5 of 9 check runs were not tested.');
    expect(texts[1]).toContain('The target stopped answering at 2026-11-22T10:00:17.000Z');
    expect(texts).toContain('2 operations [never_authorised]: never authorised: answered only 401/403: GET /admin/users, DELETE /admin/users/{id}');
    expect(texts).toContain('3 check runs not tested [target_down]: ' + TARGET_DOWN + ' (sqli 2, bola 1)');
    expect(invocation.toolExecutionNotifications.slice(0, lines.length).every((n: { level: string }) => n.level === 'warning')).toBe(true);
    expect(invocation.properties.not_tested).toEqual(body.not_tested);
  });

  it('a fully tested scan has no such notification and no not_tested property', () => {
    const sarif = toSarif(resultsBodyOf(model(report(fullyTested()))));
    expect(sarif.runs[0].invocations[0].toolExecutionNotifications).toBeUndefined();
    expect(sarif.runs[0].invocations[0].properties).not.toHaveProperty('not_tested');
  });
});

describe('JUnit', () => {
  const parse = (xml: string) =>
    new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name) }).parse(xml);

  it('the security suite starts with not-tested properties, and its system-out with the same lines', () => {
    const xml = toJunit(resultsBodyOf(model(report(untested()))));
    const suite = parse(xml).testsuites.testsuite[0];
    const properties = new Map<string, string>(suite.properties.property.map((p: { name: string; value: string }) => [p.name, p.value]));
    expect(properties.get('vigil.not_tested')).toBe(
      '4 of 6 operations never answered 2xx to any identity; 1 operation was skipped; 5 of 9 check runs were not tested.',
    );
    expect(properties.get('vigil.not_tested.operations_never_reached')).toBe('4');
    expect(properties.get('vigil.not_tested.check_runs')).toBe('5');
    expect(properties.get('vigil.not_tested.cause.1')).toContain('The target stopped answering at 2026-11-22T10:00:17.000Z');
    expect(properties.get('vigil.not_tested.operations.1')).toBe('2: never authorised: answered only 401/403');
    // The properties come before any testcase.
    const open = xml.indexOf('<testsuite ');
    expect(xml.indexOf('<properties>', open)).toBeLessThan(xml.indexOf('<testcase', open));
    const out = String(suite['system-out']).split('\n');
    const lines = notTestedLines(notTestedSummary(report(untested())));
    expect(out.slice(0, lines.length)).toEqual(lines);
    expect(out.slice(lines.length).every((l) => l.startsWith('warning: '))).toBe(true);
  });

  it('a fully tested scan has neither', () => {
    const xml = toJunit(resultsBodyOf(model(report(fullyTested()))));
    expect(xml).not.toContain('<properties>');
    expect(xml).not.toContain('Not tested');
  });
});
