/**
 * SARIF as GitHub code scanning ingests it: valid against the official OASIS SARIF 2.1.0 schema
 * (errata01, vendored in test/fixtures/schemas), and within the rules GitHub documents in "SARIF
 * support for code scanning" and "SARIF results exceed limit": ruleId / ruleIndex consistency,
 * partialFingerprints on every result, security-severity as a number in [0, 10] on rules tagged
 * `security`, at least one location per result, repository-relative URIs with %SRCROOT%, startLine >= 1,
 * and the per-run limits. Fingerprints are stable across runs; results land on the operation's line
 * in a YAML or JSON spec.
 */
import { readFileSync } from 'node:fs';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { SARIF_LIMITS, toSarif, urlAsRepoPath } from '../../src/reports/sarif.js';
import { judge } from '../../src/cli/gate.js';
import { operationLine, pathsLine } from '../../src/reports/spec-location.js';
import type { Task } from '../../src/domain/scan.js';
import { fullReport, securityOutcome, securityReport } from '../reports/fixtures.js';

const schema = JSON.parse(readFileSync(new URL('../fixtures/schemas/sarif-schema-2.1.0.json', import.meta.url), 'utf8'));
const ajv = new AjvDraft04Module.default({ allErrors: true, strict: false, unicodeRegExp: false });
addFormatsModule.default(ajv);
const validateSarif = ajv.compile(schema);

type Json = Record<string, any>;

/** What GitHub documents for an upload; every problem found, empty when the file is ingestible. */
function githubProblems(sarif: Json): string[] {
  const problems: string[] = [];
  const bad = (cond: unknown, what: string) => {
    if (!cond) problems.push(what);
  };
  bad(sarif.version === '2.1.0', 'version must be 2.1.0');
  bad(typeof sarif.$schema === 'string', '$schema missing');
  bad(Array.isArray(sarif.runs) && sarif.runs.length >= 1 && sarif.runs.length <= 20, 'runs: 1 to 20');
  for (const run of sarif.runs ?? []) {
    const driver = run.tool?.driver;
    bad(typeof driver?.name === 'string' && driver.name.length > 0, 'tool.driver.name required');
    const rules: Json[] = driver?.rules ?? [];
    bad(rules.length <= SARIF_LIMITS.rulesPerRun, 'too many rules');
    const ids = rules.map((r) => r.id);
    bad(new Set(ids).size === ids.length, 'rule ids must be unique');
    for (const r of rules) {
      bad(typeof r.id === 'string' && r.id.length > 0, 'rule id');
      bad(typeof r.shortDescription?.text === 'string' && r.shortDescription.text.length > 0, `rule ${r.id}: shortDescription`);
      bad(typeof r.fullDescription?.text === 'string' && r.fullDescription.text.length > 0, `rule ${r.id}: fullDescription`);
      bad(r.help === undefined || (typeof r.help.text === 'string' && r.help.text.length > 0), `rule ${r.id}: help.text`);
      const tags: unknown[] = r.properties?.tags ?? [];
      bad(tags.length <= 20 && tags.every((t) => typeof t === 'string'), `rule ${r.id}: tags`);
      const sev = r.properties?.['security-severity'];
      if (sev !== undefined) {
        bad(typeof sev === 'string' && /^\d+(\.\d+)?$/.test(sev) && Number(sev) >= 0 && Number(sev) <= 10, `rule ${r.id}: security-severity ${sev}`);
        bad(tags.includes('security'), `rule ${r.id}: security-severity without the security tag`);
      }
      if (r.helpUri !== undefined) bad(/^https?:\/\//.test(r.helpUri), `rule ${r.id}: helpUri ${r.helpUri}`);
    }
    const results: Json[] = run.results ?? [];
    bad(results.length <= SARIF_LIMITS.resultsPerRun, 'too many results');
    for (const res of results) {
      const at = `result ${res.ruleId}`;
      bad(typeof res.ruleId === 'string' && ids.includes(res.ruleId), `${at}: ruleId not a rule`);
      if (res.ruleIndex !== undefined) bad(rules[res.ruleIndex]?.id === res.ruleId, `${at}: ruleIndex ${res.ruleIndex} names ${rules[res.ruleIndex]?.id}`);
      bad(typeof res.message?.text === 'string' && res.message.text.length > 0, `${at}: message.text`);
      bad(['error', 'warning', 'note', 'none'].includes(res.level), `${at}: level ${res.level}`);
      const fp = res.partialFingerprints;
      bad(fp && Object.keys(fp).length > 0 && Object.values(fp).every((v) => typeof v === 'string' && v.length > 0), `${at}: partialFingerprints`);
      bad(Array.isArray(res.locations) && res.locations.length >= 1 && res.locations.length <= SARIF_LIMITS.locationsPerResult, `${at}: 1 to 1000 locations`);
      for (const loc of res.locations ?? []) {
        const art = loc.physicalLocation?.artifactLocation;
        bad(typeof art?.uri === 'string' && art.uri.length > 0, `${at}: artifactLocation.uri`);
        // Repository paths only: an http(s) URI fails the upload ("unrecognized SARIF location URI scheme").
        bad(!/^[a-z][a-z0-9+.-]*:/i.test(String(art?.uri)) && !String(art?.uri).split('/')[0]!.includes(':'), `${at}: uri ${art?.uri} has a scheme`);
        // Every location needs a line (region.startLine) for code scanning to place it.
        bad(loc.physicalLocation?.region !== undefined, `${at}: region missing`);
        if (art?.uriBaseId !== undefined) {
          bad(art.uriBaseId === '%SRCROOT%', `${at}: uriBaseId`);
          bad(
            !/^[a-z][a-z0-9+.-]*:/i.test(art.uri) && !art.uri.startsWith('/') && !art.uri.split('/').includes('..'),
            `${at}: uri ${art.uri} is not relative to the repository root`,
          );
        }
        const region = loc.physicalLocation?.region;
        if (region) bad(Number.isInteger(region.startLine) && region.startLine >= 1, `${at}: startLine ${region.startLine}`);
      }
      const rsev = res.properties?.['security-severity'];
      if (rsev !== undefined) bad(/^\d+(\.\d+)?$/.test(rsev) && Number(rsev) <= 10, `${at}: security-severity`);
    }
  }
  return problems;
}

function expectIngestible(sarif: Json) {
  expect(validateSarif(sarif), JSON.stringify(validateSarif.errors?.slice(0, 5))).toBe(true);
  expect(githubProblems(sarif)).toEqual([]);
}

/** A completed results body (GET /scan/{id}/results) with the security section. */
function securityBody() {
  const report = securityReport();
  return { ...report, warnings: securityOutcome().warnings, security: securityOutcome() };
}

/** A full scan's results body: functional sections as the API names them. */
function fullBody() {
  const report = fullReport();
  const functional = report.functional!;
  return {
    ...report,
    warnings: [],
    accessibility: {
      pages_scanned: functional.accessibility.pages_scanned,
      violations: functional.accessibility.violations.map((v) => ({ ...v, elements: v.elements_affected })),
      compliance_score: functional.accessibility.compliance_score,
    },
    visual_regression: { comparisons: functional.visual_regression.pages, diffs_detected: 1 },
  };
}

const YAML_SPEC = `openapi: 3.0.3
info:
  title: Shop
  version: "2"
servers:
  - url: https://api.shop.example/v2
paths:
  /orders:
    get:
      summary: "orders: all of them"
      responses:
        "200":
          description: ok
    post:
      responses:
        "201":
          description: created
  "/orders/{id}":
    parameters:
      - name: id
        in: path
        required: true
    get:
      description: |
        Returns the order.
        get: not a key here
      responses:
        "200":
          description: ok
  /products:
    get:
      responses:
        "200":
          description: ok
  /me:
    get:
      responses:
        "200":
          description: ok
  /users/{id}:
    patch:
      responses:
        "200":
          description: ok
components: {}
`;

/** The line of `<method>:` under `<path>:` found by reading the text the slow way. */
function lineOf(text: string, path: string, method: string): number {
  const lines = text.split('\n');
  const p = lines.findIndex((l) => new RegExp(`^\\s+["']?${path.replace(/[{}/]/g, '\\$&')}["']?\\s*:`).test(l));
  const m = lines.findIndex((l, i) => i > p && new RegExp(`^\\s+["']?${method}["']?\\s*:`).test(l));
  return m + 1;
}

describe('SARIF: schema and GitHub ingestion', () => {
  it('the vendored schema is the official SARIF 2.1.0 schema (draft-04, errata01)', () => {
    expect(schema.title).toBe('Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema');
    expect(schema.id).toContain('sarif-schema-2.1.0.json');
    expect(validateSarif({ version: '2.1.0', runs: [{ tool: { driver: {} } }] })).toBe(false);
  });

  it('security, full, spec-located, old and failed scans are valid and ingestible', () => {
    const spec = { path: 'api/openapi.yaml', text: YAML_SPEC };
    const cases = [
      toSarif(securityBody()),
      toSarif(securityBody(), '1.2.3', { specFile: spec }),
      toSarif(fullBody()),
      toSarif(fullBody(), '0.1.0', { specFile: spec }),
      toSarif({ ...securityReport(), warnings: [], security: null }),
      toSarif({ scan_id: 'scn_x', status: 'failed', mode: 'security', url: 'https://x.test', tasks: [], failure_reason: 'unreachable' }),
    ];
    for (const sarif of cases) expectIngestible(sarif);
    // A failed scan never reads as "no findings": the invocation says it did not succeed, and why.
    const failed = cases.at(-1)!.runs[0].invocations[0];
    expect(failed.executionSuccessful).toBe(false);
    expect(failed.toolExecutionNotifications[0]).toEqual({
      level: 'error',
      message: { text: 'The scan failed: unreachable; its results are not a complete list of findings.' },
    });
    expect(cases[0]!.runs[0].invocations[0].executionSuccessful).toBe(true);
    // The checker is not blind: a result whose ruleIndex names another rule, or a URI outside the repository, is reported.
    const broken = toSarif(securityBody(), '1.0.0', { specFile: spec });
    broken.runs[0].results[0].ruleIndex = broken.runs[0].results[0].ruleIndex + 1;
    broken.runs[0].results[1].locations[0].physicalLocation.artifactLocation.uri = '/etc/openapi.yaml';
    broken.runs[0].results[2].partialFingerprints = {};
    expect(githubProblems(broken)).toHaveLength(3);
  });

  it('a scan with CI metadata names its repository, commit and branch in versionControlProvenance, valid against the schema', () => {
    const ci = {
      provider: 'github',
      repository: 'acme/shop',
      repository_url: 'https://github.com/acme/shop',
      branch: 'feature/x',
      commit: '9fceb02d0ae598e95dc970b74767f19372d61af8',
      pr: '42',
    };
    const sarif = toSarif({ ...securityBody(), ci });
    expectIngestible(sarif);
    expect(sarif.runs[0].versionControlProvenance).toEqual([{ repositoryUri: 'https://github.com/acme/shop', revisionId: ci.commit, branch: 'feature/x' }]);
    expect(sarif.runs[0].properties.ci).toEqual(ci);
    // Without the repository's address there is no provenance (repositoryUri is required), but the run still names the commit.
    const bare = toSarif({ ...securityBody(), ci: { branch: 'main', commit: 'abcdef1' } });
    expectIngestible(bare);
    expect(bare.runs[0]).not.toHaveProperty('versionControlProvenance');
    expect(bare.runs[0].properties.ci).toEqual({ branch: 'main', commit: 'abcdef1' });
    // The checker is not blind: provenance without its required repositoryUri fails the schema.
    const broken = toSarif({ ...securityBody(), ci });
    delete broken.runs[0].versionControlProvenance[0].repositoryUri;
    expect(validateSarif(broken)).toBe(false);
  });

  it("every result has a level, its finding's security-severity, and the rule the worst of its findings", () => {
    const body = securityBody();
    body.tasks.push({
      task_id: 'tsk_hdr_high',
      kind: 'security',
      name: 'Security headers: no CSP on the admin area',
      status: 'failed',
      severity: 'high',
      check: 'headers',
      endpoint: 'GET /admin',
      owasp: 'API8:2023',
      cwe: 'CWE-693',
    } as Task);
    const run = toSarif(body).runs[0];
    const headers = run.tool.driver.rules.find((r: Json) => r.id === 'headers');
    expect(headers.properties['security-severity']).toBe('8.0');
    expect(headers.defaultConfiguration.level).toBe('error');
    const bySeverity = Object.fromEntries(run.results.map((r: Json) => [r.properties.task_id, [r.level, r.properties['security-severity']]]));
    expect(bySeverity.tsk_hdr_high).toEqual(['error', '8.0']);
    expect(bySeverity.tsk_21).toEqual(['note', '3.0']);
    expect(bySeverity.tsk_01).toEqual(['error', '9.5']);
    expect(bySeverity.tsk_07).toEqual(['warning', '5.5']);
    const bola = run.tool.driver.rules.find((r: Json) => r.id === 'bola');
    const info = body.security.checks.find((c) => c.id === 'bola')!;
    expect(bola.fullDescription.text).toBe(info.description);
    expect(bola.help.text).toContain(`Remediation: ${info.remediation}`);
    expect(bola.help.markdown).toContain('**Remediation.**');
    expect(bola.helpUri).toBe(info.owasp.url);
    expect(bola.properties.tags).toEqual(['security', 'API1:2023', 'CWE-639']);
  });

  it('fingerprints are stable across runs (task ids, evidence, order) and differ by check, operation and parameter', () => {
    const first = toSarif(securityBody()).runs[0].results as Json[];
    const again = securityBody();
    again.tasks = again.tasks.reverse().map((t, i) => ({ ...t, task_id: `tsk_rerun_${i}`, evidence: `${t.evidence ?? ''} (run 2)` }));
    const second = toSarif(again).runs[0].results as Json[];
    const key = (r: Json) => `${r.ruleId} ${r.message.text.split(' Evidence:')[0]}`;
    const map1 = new Map(first.map((r) => [key(r), r.partialFingerprints['vigilFinding/v1']]));
    const map2 = new Map(second.map((r) => [key(r), r.partialFingerprints['vigilFinding/v1']]));
    expect(map1.size).toBe(first.length);
    expect([...map2.entries()].sort()).toEqual([...map1.entries()].sort());
    const fps = first.map((r) => r.partialFingerprints['vigilFinding/v1']);
    expect(new Set(fps).size).toBe(fps.length);
    for (const fp of fps) expect(fp).toMatch(/^[0-9a-f]{32}$/);
    // Another parameter on the same check and operation is another finding.
    const other = securityBody();
    const bola = other.tasks.find((t) => t.task_id === 'tsk_01')!;
    const fpOf = (b: Json) => toSarif(b).runs[0].results.find((r: Json) => r.properties.task_id === 'tsk_01').partialFingerprints['vigilFinding/v1'];
    const before = fpOf(other);
    bola.parameter = 'order_id';
    expect(fpOf(other)).not.toBe(before);
    // No task id anywhere in a fingerprint.
    expect(JSON.stringify(first.map((r) => r.partialFingerprints))).not.toContain('tsk_');
  });

  it('distinct weaknesses one check finds on one operation are distinct alerts; numbers in a title do not matter', () => {
    const jwt = (task_id: string, name: string) =>
      ({ task_id, kind: 'security', name, status: 'failed', severity: 'critical', check: 'jwt', endpoint: 'GET /jwt/me' }) as Task;
    const body = {
      ...securityReport(),
      tasks: [jwt('t1', 'JWT with alg "none" accepted'), jwt('t2', 'Expired JWT accepted'), jwt('t3', 'Rate: 500 requests in 10 s')],
    };
    const results = toSarif(body).runs[0].results as Json[];
    const [none, expired, rate] = results.map((r) => r.partialFingerprints['vigilFinding/v1']);
    expect(none).not.toBe(expired);
    // Suppressions and baselines tell them apart too: one fingerprint everywhere.
    expect(results[0]!.properties.fingerprint).toBe(none);
    expect(results[1]!.properties.fingerprint).toBe(expired);
    expect(results[0]!.properties.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    const again = toSarif({ ...body, tasks: [jwt('t9', 'Rate: 612 requests in 11 s')] }).runs[0].results[0].partialFingerprints['vigilFinding/v1'];
    expect(again).toBe(rate);
  });

  it('with the spec file, results point at the line of their operation, relative to %SRCROOT%', () => {
    const run = toSarif(securityBody(), '0.1.0', { specFile: { path: './api\\openapi.yaml', text: YAML_SPEC } }).runs[0];
    const locOf = (taskId: string) => run.results.find((r: Json) => r.properties.task_id === taskId).locations as Json[];
    const bola = locOf('tsk_01')[0]!;
    expect(bola.physicalLocation.artifactLocation).toEqual({ uri: 'api/openapi.yaml', uriBaseId: '%SRCROOT%' });
    expect(bola.physicalLocation.region.startLine).toBe(lineOf(YAML_SPEC, '/orders/{id}', 'get'));
    expect(YAML_SPEC.split('\n')[bola.physicalLocation.region.startLine - 1]).toBe('    get:');
    expect(bola.logicalLocations[0].name).toBe('GET /orders/{id}');
    expect(locOf('tsk_02')[0]!.physicalLocation.region.startLine).toBe(lineOf(YAML_SPEC, '/products', 'get'));
    expect(locOf('tsk_04')[0]!.physicalLocation.region.startLine).toBe(lineOf(YAML_SPEC, '/users/{id}', 'patch'));
    // A finding on every operation: one location per operation, each on its line.
    const headers = locOf('tsk_21');
    expect(headers.map((l) => l.physicalLocation.region.startLine).slice(0, 3)).toEqual([
      lineOf(YAML_SPEC, '/orders', 'get'),
      lineOf(YAML_SPEC, '/orders/{id}', 'get'),
      lineOf(YAML_SPEC, '/orders', 'post'),
    ]);
    // An operation the spec does not have lands on `paths:`.
    expect(locOf('tsk_05')[0]!.physicalLocation.region.startLine).toBe(pathsLine(YAML_SPEC));
    expect(run.originalUriBaseIds['%SRCROOT%']).toBeDefined();
  });

  it('without the spec file, results point at the operation on the target written as a path, line 1', () => {
    const run = toSarif(securityBody()).runs[0];
    const headers = run.results.find((r: Json) => r.properties.task_id === 'tsk_21');
    expect(headers.locations[1].physicalLocation).toEqual({ artifactLocation: { uri: 'api.shop.example/v2/orders/%7Bid%7D' }, region: { startLine: 1 } });
    expect(headers.locations[1].properties.url).toBe('https://api.shop.example/v2/orders/{id}');
    expect(headers.locations[1].logicalLocations[0].name).toBe('GET /orders/{id}');
    expect(urlAsRepoPath('http://localhost:3000/a b/{id}?q=1#x')).toBe('localhost_3000/a%20b/%7Bid%7D');
    expect(urlAsRepoPath('https://shop.test/')).toBe('shop.test');
    expect(urlAsRepoPath('not a url')).toBe('not%20a%20url');
  });

  it('finds the operation line in pretty JSON, minified JSON and quoted YAML keys', () => {
    const doc = {
      openapi: '3.0.0',
      info: { title: 't', version: '1' },
      paths: { '/a': { get: { responses: {} } }, '/b/{id}': { summary: 'get: no', delete: { responses: {} }, get: { responses: {} } } },
    };
    const pretty = JSON.stringify(doc, null, 2);
    const lines = pretty.split('\n');
    expect(lines[operationLine(pretty, 'GET /b/{id}')! - 1]!.trim()).toBe('"get": {');
    expect(lines[operationLine(pretty, 'DELETE /b/{id}')! - 1]!.trim()).toBe('"delete": {');
    expect(lines[operationLine(pretty, 'GET /a')! - 1]!.trim()).toBe('"get": {');
    expect(operationLine(JSON.stringify(doc), 'GET /b/{id}')).toBe(1);
    const crlf = "paths:\r\n  '/x':\r\n    put:\r\n      responses: {}\r\n";
    expect(operationLine(crlf, 'PUT /x')).toBe(3);
    expect(operationLine('openapi: 3.0.0\n', 'GET /x')).toBeUndefined();
    expect(pathsLine('openapi: 3.0.0\n')).toBe(1);
  });

  it('functional findings: visual regression on its page, each accessibility violation with its own rule', () => {
    const sarif = toSarif(fullBody());
    const run = sarif.runs[0];
    const visual = run.results.find((r: Json) => r.ruleId === 'functional/visual-regression');
    expect(visual.locations[0].physicalLocation.artifactLocation.uri).toBe('shop.example/cart');
    expect(visual.locations[0].properties.url).toBe('https://shop.example/cart');
    expect(visual.message.text).toContain('7.31% of pixels differ');
    expect(visual.level).toBe('error');
    const a11y = run.results.filter((r: Json) => r.ruleId.startsWith('accessibility/'));
    expect(a11y.map((r: Json) => [r.ruleId, r.level])).toEqual([
      ['accessibility/color-contrast', 'error'],
      ['accessibility/image-alt', 'error'],
      ['accessibility/region', 'warning'],
    ]);
    const imageAlt = a11y.find((r: Json) => r.ruleId === 'accessibility/image-alt');
    expect(imageAlt.properties.selectors).toEqual(['main > img.product', expect.stringContaining('#chat >>> img')]);
    const rule = run.tool.driver.rules.find((r: Json) => r.id === 'accessibility/image-alt');
    expect(rule.helpUri).toBe('https://dequeuniversity.com/rules/axe/4.10/image-alt');
    expect(rule.properties.tags).toEqual(['functional', 'accessibility', '1.1.1']);
    expect(rule.properties['security-severity']).toBeUndefined();
    // The hostile help URL is never a helpUri.
    expect(run.tool.driver.rules.find((r: Json) => r.id === 'accessibility/region').helpUri).toBeUndefined();
    // The accessibility task is not repeated when its violations are listed.
    expect(run.results.some((r: Json) => r.ruleId === 'functional/accessibility')).toBe(false);
    // Without the violations (a plan without detailed reports), the task is the result.
    const bare = toSarif({ ...fullBody(), accessibility: undefined, functional: null });
    expect(bare.runs[0].results.some((r: Json) => r.ruleId === 'functional/accessibility')).toBe(true);
    expectIngestible(bare);
  });
  it('findings the gate suppressed carry a SARIF suppression with the reason (keys shared with the gate)', () => {
    const body = fullBody();
    const gate = judge(body, {
      failOn: 'high',
      failOnA11y: 'minor',
      failOnVisual: true,
      budgets: [],
      baseline: null,
      today: '2026-11-24',
      suppressions: [
        { check: 'bola', reason: 'accepted: internal API', until: '2027-01-31', source: 'test' },
        { check: 'visual', page: '/cart', reason: 'redesign in progress', source: 'test' },
        { check: 'a11y/region', reason: 'third-party widget', source: 'test' },
      ],
    });
    expect(gate.suppressed.length).toBe(3);
    const sarif = toSarif(body, '0.1.0', {
      suppressed: gate.suppressed.map(({ item, suppression }) => ({ key: item.key, reason: suppression.reason, until: suppression.until })),
    });
    expectIngestible(sarif);
    const results = sarif.runs[0].results as Json[];
    const withSuppression = results.filter((r) => r.suppressions);
    expect(withSuppression.map((r) => r.ruleId).sort()).toEqual(['accessibility/region', 'bola', 'functional/visual-regression']);
    expect(withSuppression.find((r) => r.ruleId === 'bola')!.suppressions).toEqual([
      { kind: 'external', status: 'accepted', justification: 'accepted: internal API (until 2027-01-31)' },
    ]);
    expect(results.filter((r) => !r.suppressions).length).toBe(results.length - 3);
  });
});
