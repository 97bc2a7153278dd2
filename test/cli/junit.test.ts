/**
 * JUnit XML: valid against Jenkins' junit-10.xsd (read from the vendored XSD: elements, children,
 * required and allowed attributes, the SUREFIRE_TIME pattern), one testcase per check and operation
 * with unique names, real durations (0 where the results have none), failures with the finding and
 * its evidence, skipped testcases for what was not tested, and an error testcase for a scan that did
 * not complete.
 */
import { readFileSync } from 'node:fs';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { toJunit } from '../../src/reports/junit.js';
import { judge } from '../../src/cli/gate.js';
import type { Task } from '../../src/domain/scan.js';
import { HOSTILE, fullReport, securityOutcome, securityReport } from '../reports/fixtures.js';
import { OUTCOME, TASKS } from '../helpers/functional-findings.js';

type Json = Record<string, any>;

interface Decl {
  attributes: Map<string, { required: boolean; pattern?: RegExp }>;
  children: Set<string>;
  text: boolean;
}

/** The element declarations of an XSD as simple as junit-10.xsd (global elements, refs, one named complex type). */
function readXsd(text: string): Map<string, Decl> {
  const parsed = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (name) => name.startsWith('xs:'),
    commentPropName: '#comment',
  }).parse(text);
  const schema = parsed['xs:schema'][0];
  const patterns = new Map<string, RegExp>();
  for (const st of schema['xs:simpleType'] ?? []) {
    const value = st['xs:restriction']?.[0]?.['xs:pattern']?.[0]?.value;
    if (value) patterns.set(st.name, new RegExp(`^(?:${value})$`));
  }
  const complexTypes = new Map<string, Json>((schema['xs:complexType'] ?? []).map((c: Json) => [c.name, c]));
  function childrenOf(node: Json, out: Set<string>) {
    for (const key of ['xs:sequence', 'xs:choice']) {
      for (const group of node[key] ?? []) {
        for (const el of group['xs:element'] ?? []) out.add(el.ref ?? el.name);
        childrenOf(group, out);
      }
    }
  }
  function declOf(complex: Json | undefined, simple: boolean): Decl {
    const decl: Decl = { attributes: new Map(), children: new Set(), text: simple || complex?.mixed === 'true' };
    if (complex) {
      for (const a of complex['xs:attribute'] ?? []) decl.attributes.set(a.name, { required: a.use === 'required', pattern: patterns.get(a.type) });
      childrenOf(complex, decl.children);
    }
    return decl;
  }
  const decls = new Map<string, Decl>();
  for (const el of schema['xs:element'] ?? []) {
    if (el.type === 'xs:string') decls.set(el.name, declOf(undefined, true));
    else if (el.type) decls.set(el.name, declOf(complexTypes.get(el.type), false));
    else decls.set(el.name, declOf(el['xs:complexType']?.[0], false));
  }
  return decls;
}

const DECLS = readXsd(readFileSync(new URL('../fixtures/schemas/junit-10.xsd', import.meta.url), 'utf8'));

/** Problems of an XML document against junit-10.xsd; empty when it conforms. */
function xsdProblems(xml: string): string[] {
  const wellFormed = XMLValidator.validate(xml);
  if (wellFormed !== true) return [`not well-formed: ${JSON.stringify(wellFormed)}`];
  const doc = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    preserveOrder: true,
    trimValues: true,
    parseTagValue: false,
    parseAttributeValue: false,
  }).parse(xml) as Json[];
  const problems: string[] = [];
  const elements = doc.filter((n) => !('?xml' in n));
  if (elements.length !== 1) problems.push('one root element');
  const walk = (node: Json, path: string) => {
    const name = Object.keys(node).find((k) => k !== ':@')!;
    const decl = DECLS.get(name);
    if (!decl) return void problems.push(`${path}: <${name}> is not declared`);
    const attrs: Json = node[':@'] ?? {};
    for (const [attr, spec] of decl.attributes) {
      if (spec.required && !(attr in attrs)) problems.push(`${path}/${name}: missing required @${attr}`);
      if (attr in attrs && spec.pattern && !spec.pattern.test(String(attrs[attr])))
        problems.push(`${path}/${name}: @${attr}="${attrs[attr]}" does not match its type`);
    }
    for (const attr of Object.keys(attrs)) if (!decl.attributes.has(attr)) problems.push(`${path}/${name}: @${attr} is not allowed`);
    for (const child of node[name] as Json[]) {
      if ('#text' in child) {
        if (!decl.text && String(child['#text']).trim()) problems.push(`${path}/${name}: text not allowed`);
        continue;
      }
      const childName = Object.keys(child).find((k) => k !== ':@')!;
      if (!decl.children.has(childName)) problems.push(`${path}/${name}: <${childName}> not allowed here`);
      walk(child, `${path}/${name}`);
    }
  };
  for (const root of elements) {
    const name = Object.keys(root).find((k) => k !== ':@')!;
    if (name !== 'testsuites' && name !== 'testsuite') problems.push(`root <${name}>`);
    walk(root, '');
  }
  return problems;
}

const parse = (xml: string) =>
  new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (name) => ['testsuite', 'testcase', 'failure'].includes(name),
    parseAttributeValue: false,
  }).parse(xml);

function securityBody() {
  return { ...securityReport(), warnings: securityOutcome().warnings, security: securityOutcome() };
}

describe('JUnit XML', () => {
  it('the structural check reads the XSD and is not blind', () => {
    expect(DECLS.get('testsuite')!.attributes.get('name')!.required).toBe(true);
    expect(DECLS.get('testcase')!.children).toEqual(
      new Set(['skipped', 'error', 'failure', 'rerunFailure', 'rerunError', 'flakyFailure', 'flakyError', 'system-out', 'system-err']),
    );
    expect(xsdProblems('<testsuites><testsuite name="a" tests="1" failures="0" errors="0" time="1.5"><testcase name="x"/></testsuite></testsuites>')).toEqual(
      [],
    );
    expect(
      xsdProblems('<testsuites skipped="1"><testsuite tests="1" failures="0" errors="0" time="1,5"><testcase><bogus/></testcase></testsuite></testsuites>'),
    ).toEqual([
      '/testsuites: @skipped is not allowed',
      '/testsuites/testsuite: missing required @name',
      '/testsuites/testsuite: @time="1,5" does not match its type',
      '/testsuites/testsuite/testcase: missing required @name',
      '/testsuites/testsuite/testcase: <bogus> not allowed here',
      '/testsuites/testsuite/testcase: <bogus> is not declared',
    ]);
  });

  const cases: Array<[string, Json]> = [
    ['security', securityBody()],
    ['full', { ...fullReport(), warnings: [] }],
    [
      'failed',
      {
        scan_id: 'scn_f',
        status: 'failed',
        mode: 'security',
        url: 'https://x.test',
        tasks: [],
        elapsed_seconds: 3.5,
        failure_reason: `Target unreachable ${HOSTILE.script}`,
      },
    ],
    [
      'functional',
      {
        ...fullReport(),
        mode: 'functional',
        tasks: fullReport().tasks.filter((t) => t.kind === 'functional'),
        security: null,
        warnings: ['https://shop.example/: measured at the timeout'],
      },
    ],
  ];
  it("what was not tested (the security suite's properties and system-out) keeps the document valid against junit-10.xsd", () => {
    const xml = toJunit(securityBody());
    expect(xml).toMatch(/<testsuite [^>]*>\n {4}<properties>\n {6}<property name="vigil.not_tested" value="26 of 29 operations never answered 2xx/);
    expect(xml).toContain('<system-out>Not tested: ');
    expect(xsdProblems(xml)).toEqual([]);
  });

  for (const [label, body] of cases) {
    it(`${label} scan: valid against junit-10.xsd, unique testcase names, counts that add up`, () => {
      const xml = toJunit(body);
      expect(xsdProblems(xml)).toEqual([]);
      const doc = parse(xml);
      let total = 0;
      let failures = 0;
      for (const suite of doc.testsuites.testsuite) {
        const tcs: Json[] = suite.testcase ?? [];
        const keys = tcs.map((c) => `${c.classname}\u0000${c.name}`);
        expect(new Set(keys).size).toBe(keys.length);
        expect(Number(suite.tests)).toBe(tcs.length);
        expect(Number(suite.failures)).toBe(tcs.filter((c) => c.failure).length);
        expect(Number(suite.errors)).toBe(tcs.filter((c) => c.error).length);
        expect(Number(suite.skipped)).toBe(tcs.filter((c) => c.skipped !== undefined).length);
        total += tcs.length;
        failures += tcs.filter((c) => c.failure).length;
      }
      expect(Number(doc.testsuites.tests)).toBe(total);
      expect(Number(doc.testsuites.failures)).toBe(failures);
    });
  }

  it('one testcase per check and operation; failures carry the finding, its evidence and the remediation', () => {
    const body = securityBody();
    // A second task of the same check, operation and parameter is the same testcase.
    body.tasks.push({
      task_id: 'tsk_dup',
      kind: 'security',
      name: 'BOLA: order of another user deletable',
      status: 'failed',
      severity: 'high',
      check: 'bola',
      endpoint: 'GET /orders/{id}',
      parameter: 'id',
      evidence: 'DELETE /orders/1002 -> 204',
    } as Task);
    const suite = parse(toJunit(body)).testsuites.testsuite[0];
    const bola = suite.testcase.filter((c: Json) => c.classname === 'vigil.security.bola' && c.failure);
    expect(bola).toHaveLength(1);
    expect(bola[0].name).toBe('Broken object level authorization: GET /orders/{id} [id]');
    expect(bola[0].failure).toHaveLength(2);
    expect(bola[0].failure[0].message).toBe('[critical] BOLA: order of another user readable on GET /orders/{id} (parameter id)');
    expect(bola[0].failure[0].type).toBe('critical');
    const text = String(bola[0].failure[0]['#text']);
    expect(text).toContain('Finding: BOLA: order of another user readable');
    expect(text).toContain('Evidence:\nGET /orders/1002 HTTP/1.1');
    expect(text).toContain('"owner":"user-b"');
    expect(text).toContain('Remediation: Check on every request that the caller may act on the object the id names.');
    // A finding on every operation is one testcase listing them.
    const headers = suite.testcase.find((c: Json) => c.classname === 'vigil.security.headers' && c.failure);
    expect(headers.name).toBe('Security headers: 4 operations');
    expect(String(headers.failure[0]['#text'])).toContain(`Endpoints (4): GET /orders, GET /orders/{id}, POST /orders, GET /echo/${HOSTILE.script}`);
    // Security tasks have no timing in the results: 0, not an invented share; the suite has the scan's time.
    expect(bola[0].time).toBe('0.000');
    expect(suite.time).toBe('277.250');
    expect(String(suite['system-out'])).toContain('warning: 3 of 29 operations answered 2xx: is the base URL right?');
  });

  it('what was not tested is skipped with the reason', () => {
    const suite = parse(toJunit(securityBody())).testsuites.testsuite[0];
    const skipped = suite.testcase.filter((c: Json) => c.skipped !== undefined);
    const byName = Object.fromEntries(skipped.map((c: Json) => [c.name, c.skipped.message]));
    expect(byName['Broken object level authorization: GET /users/{name}']).toBe('not tested: no resource found');
    expect(byName['JWT alg none: 29 operations not tested (no JWT seen)']).toBe('not tested: no JWT seen');
    expect(byName['Every check: POST /admin/reset']).toBe('not tested: safe mode: destructive');
  });

  it('functional testcases carry their own durations and errors', () => {
    const doc = parse(toJunit({ ...fullReport(), warnings: [] }));
    const functional = doc.testsuites.testsuite.find((s: Json) => String(s.name).startsWith('vigil functional'));
    const visual = functional.testcase.find((c: Json) => c.name === 'Visual regression: /cart');
    expect(visual.classname).toBe('vigil.functional.visual-regression');
    expect(visual.time).toBe('2.875');
    expect(visual.failure[0].message).toBe('Visual regression: /cart: 7.31% of pixels differ (threshold 0.5%)');
    expect(functional.testcase.find((c: Json) => c.name === 'Performance: /').time).toBe('6.120');
    expect(Number(functional.time)).toBeCloseTo((2310 + 2875 + 1402 + 6120) / 1000, 3);
  });

  it('a scan that did not complete is an error testcase with its reason, escaped', () => {
    const xml = toJunit(cases[2]![1]);
    expect(xml).not.toContain('<script>');
    const suite = parse(xml).testsuites.testsuite[0];
    expect(suite.errors).toBe('1');
    expect(suite.testcase[0].error.message).toBe(`scan failed: Target unreachable ${HOSTILE.script}`);
  });
  it('a testcase whose findings the gate suppressed is skipped with the reason, not failed', () => {
    const body = { ...fullReport(), warnings: [] };
    const gate = judge(body, {
      failOn: 'high',
      failOnA11y: 'serious',
      failOnVisual: true,
      budgets: [],
      baseline: null,
      today: '2026-11-24',
      suppressions: [
        { check: 'sqli', reason: 'false positive: q is an enum', source: 'test' },
        { check: 'visual', page: '/cart', reason: 'redesign in progress', until: '2026-12-31', source: 'test' },
      ],
    });
    const xml = toJunit(body, {
      suppressed: gate.suppressed.map(({ item, suppression }) => ({ key: item.key, reason: suppression.reason, until: suppression.until })),
    });
    expect(xsdProblems(xml)).toEqual([]);
    const cases: Json[] = parse(xml).testsuites.testsuite.flatMap((s: Json) => s.testcase);
    const sqli = cases.find((c) => c.classname === 'vigil.security.sqli')!;
    expect(sqli.failure).toBeUndefined();
    expect(sqli.skipped.message).toBe('suppressed: false positive: q is an enum');
    const visual = cases.find((c) => c.name === 'Visual regression: /cart')!;
    expect(visual.skipped.message).toBe('suppressed: redesign in progress (until 2026-12-31)');
    expect(cases.find((c) => c.classname === 'vigil.security.bola')!.failure).toHaveLength(1);
    const unsuppressed = parse(toJunit(body))
      .testsuites.testsuite.flatMap((s: Json) => s.testcase)
      .filter((c: Json) => c.failure).length;
    expect(cases.filter((c) => c.failure).length).toBe(unsuppressed - 2);
  });

  it('a check that does not apply to an operation is no testcase; one that could not be tested is skipped', () => {
    const body = securityBody();
    const bola = body.security.coverage.checks.find((c) => c.check === 'bola')!;
    bola.not_run.push(
      { reason: 'no object id in the path', count: 2, endpoints: ['GET /orders', 'POST /orders'] },
      { reason: 'no second identity (auth.secondary)', count: 1, endpoints: ['GET /echo/x'] },
    );
    const cases: Json[] = parse(toJunit(body)).testsuites.testsuite[0].testcase;
    const names = cases.map((c) => c.name);
    expect(names).not.toContain('Broken object level authorization: GET /orders');
    expect(names).not.toContain('Broken object level authorization: POST /orders');
    expect(cases.find((c) => c.name === 'Broken object level authorization: GET /echo/x')!.skipped.message).toBe(
      'not tested: no second identity (auth.secondary)',
    );
  });

  it("with the gate's verdict, a finding below the threshold passes (its system-out says so) and the suite counts only what fails the gate", () => {
    const body = { ...fullReport(), warnings: [] };
    const gate = judge(body, {
      failOn: 'critical',
      failOnA11y: 'critical',
      failOnVisual: true,
      budgets: [],
      baseline: null,
      today: '2026-11-24',
      suppressions: [],
    });
    expect(gate.below.length).toBeGreaterThan(0);
    const xml = toJunit(body, { gate: { failing: gate.failing, below: gate.below, threshold: '--fail-on critical' } });
    expect(xsdProblems(xml)).toEqual([]);
    const doc = parse(xml);
    const cases: Json[] = doc.testsuites.testsuite.flatMap((s: Json) => s.testcase);
    const failing = cases.filter((c) => c.failure);
    const ungated = parse(toJunit(body))
      .testsuites.testsuite.flatMap((s: Json) => s.testcase)
      .filter((c: Json) => c.failure);
    expect(failing.length).toBeLessThan(ungated.length);
    expect(Number(doc.testsuites.failures)).toBe(failing.length);
    const noted = cases.filter((c) => String(c['system-out'] ?? '').includes('below the gate (--fail-on critical), not failing'));
    expect(noted.length).toBe(ungated.length - failing.length);
    // What still fails is what the gate fails: every critical security finding, and the visual diff.
    const criticalTasks = body.tasks.filter((t) => t.status === 'failed' && t.severity === 'critical').length;
    expect(failing.filter((c) => String(c.classname).startsWith('vigil.security')).length).toBeGreaterThanOrEqual(Math.min(1, criticalTasks));
    expect(failing.some((c) => c.name === 'Visual regression: /cart')).toBe(true);
  });

  it('an accessibility task whose missed accessibility budget fails the gate still fails when its violations are below the gate', () => {
    const body = {
      status: 'completed',
      tasks: TASKS,
      accessibility: { violations: OUTCOME.accessibility.violations },
      performance: { metrics: OUTCOME.performance.pages },
      visual_regression: { comparisons: OUTCOME.visual },
    };
    // No budgets given to the gate: it takes the server's budget lines (lcp and accessibility missed on /checkout).
    const gate = judge(body, { failOn: 'none', failOnA11y: 'none', failOnVisual: false, budgets: [], baseline: null, today: '2026-11-24', suppressions: [] });
    expect(gate.failing.map((i) => i.check).sort()).toEqual(['budget/accessibility', 'budget/lcp']);
    const cases: Json[] = parse(
      toJunit(body, { gate: { failing: gate.failing, below: gate.below, threshold: '--fail-on-a11y none' } }),
    ).testsuites.testsuite.flatMap((s: Json) => s.testcase ?? []);
    const testcase = (name: string) => cases.find((c) => c.name === name)!;
    expect(testcase('Accessibility (wcag2aa): /checkout').failure).toBeDefined();
    expect(testcase('Accessibility (wcag2aa): /').failure).toBeUndefined();
    expect(String(testcase('Accessibility (wcag2aa): /')['system-out'])).toContain('below the gate');
  });
});
