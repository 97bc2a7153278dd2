/**
 * The CI gate of `vigil scan`, as a child process against a real server: security findings at or above
 * high by default, visual diffs, accessibility by impact, budgets, pages not loaded, failed scans;
 * suppressions (incl. expired), --new-only / --baseline, sorting and colour.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVigil } from '../helpers/process.js';
import { startServer, storeLabel, type TestServer } from '../helpers/server.js';
import { gateEngines } from './gate-engine.js';

describe(`vigil scan gate (${storeLabel})`, () => {
  let server: TestServer;
  let env: Record<string, string>;
  let freeKey: string;

  beforeAll(async () => {
    server = await startServer({ engines: gateEngines() });
    const { apiKey } = await server.createTenant('enterprise');
    ({ apiKey: freeKey } = await server.createTenant('free'));
    env = { VIGIL_URL: server.vigil.url!, VIGIL_API_KEY: apiKey };
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function vigil(args: string[], extra: Record<string, string> = {}, cwd?: string) {
    const p = runVigil([...args, '--poll-interval', '0.1'], { ...env, ...extra }, { cwd });
    const code = await p.exited;
    return { code, out: p.output() };
  }
  const json = (out: string) => JSON.parse(out.slice(out.indexOf('\n{') + 1));

  it('fails by default on a security finding at or above high; --fail-on moves or turns off the threshold', async () => {
    const [crit, medium, none, low] = await Promise.all([
      vigil(['scan', 'http://api.test/?findings=critical']),
      vigil(['scan', 'http://api.test/?findings=medium']),
      vigil(['scan', 'http://api.test/?findings=critical', '--fail-on', 'none']),
      vigil(['scan', 'http://api.test/?findings=medium', '--fail-on', 'medium']),
    ]);
    expect(crit.code, crit.out).toBe(1);
    expect(crit.out).toContain('FAILED: 1 security finding(s) at or above high');
    expect(crit.out).toMatch(/Failing the gate \(1\):\n\s+CRITICAL\s+critical finding on GET \/items\/\{id\}\s+GET \/items\/\{id\}/);
    expect(medium.code, medium.out).toBe(0);
    expect(medium.out).toMatch(/Below the thresholds \(not failing\) \(1\):\n\s+MEDIUM/);
    expect(medium.out).toContain('PASSED');
    expect(none.code, none.out).toBe(0);
    expect(low.code, low.out).toBe(1);
  });

  it('--fail-on-coverage fails a security scan that reached fewer operations than the percentage', async () => {
    const [few, enough, off, bad] = await Promise.all([
      vigil(['scan', 'http://api.test/?reached=3/10', '--fail-on-coverage', '50']),
      vigil(['scan', 'http://api.test/?reached=6/10', '--fail-on-coverage', '50%']),
      vigil(['scan', 'http://api.test/?reached=3/10']),
      vigil(['scan', 'http://api.test/?reached=3/10', '--fail-on-coverage', '150']),
    ]);
    expect(few.code, few.out).toBe(1);
    expect(few.out).toContain('Coverage 30%: 3 of 10 operations answered 2xx (--fail-on-coverage 50)');
    expect(few.out).toContain('FAILED: security coverage 30%: 3 of 10 operations answered 2xx (--fail-on-coverage 50)');
    expect(enough.code, enough.out).toBe(0);
    expect(off.code, off.out).toBe(0);
    expect(bad.out).toContain('--fail-on-coverage must be a percentage from 0 to 100');
    expect(bad.code).not.toBe(0);
  });

  it('leads the summary of a security scan with what was not tested: the headline, the causes, then the reasons by code; nothing when all was tested', async () => {
    const [untested, clean] = await Promise.all([
      vigil(['scan', 'http://api.test/?findings=critical&reached=3/10&untested=1']),
      vigil(['scan', 'http://api.test/?reached=10/10']),
    ]);
    expect(untested.code, untested.out).toBe(1);
    const at = (needle: string) => {
      const i = untested.out.indexOf(needle);
      expect(i, needle).toBeGreaterThanOrEqual(0);
      return i;
    };
    const head = at('NOT TESTED: 7 of 10 operations never answered 2xx to any identity; 2 of 5 check runs were not tested.');
    expect(head).toBeLessThan(at('Failing the gate (1):'));
    expect(head, untested.out).toBeLessThan(untested.out.search(/^tasks\s+\d+ passed/m));
    expect(at('target down: The target stopped answering at 2026-11-22T10:00:17.000Z')).toBeGreaterThan(head);
    expect(at('identity lost: The first identity (auth) was lost at 2026-11-22T10:00:09.000Z')).toBeGreaterThan(head);
    expect(untested.out).toMatch(
      /7 operations\s+never_authorised\s+never authorised: answered only 401\/403: GET \/things\/3, GET \/things\/4, GET \/things\/5 and 4 more/,
    );
    expect(untested.out).toMatch(/2 check runs\s+target_down\s+the target stopped answering .* \(sql-injection\)/);
    // A check that does not apply is no gap.
    expect(untested.out).not.toContain('not_applicable');
    expect(clean.code, clean.out).toBe(0);
    expect(clean.out).not.toContain('NOT TESTED');
  });

  it('lists findings most severe first, in colour with FORCE_COLOR, never with NO_COLOR or --no-color', async () => {
    const args = ['scan', 'http://api.test/?findings=low,critical,medium', '--fail-on', 'low'];
    const [plain, colour, noColor, flag] = await Promise.all([
      vigil(args),
      vigil(args, { FORCE_COLOR: '1' }),
      vigil(args, { FORCE_COLOR: '1', NO_COLOR: '1' }),
      vigil([...args, '--no-color'], { FORCE_COLOR: '1' }),
    ]);
    expect(plain.code).toBe(1);
    const order = ['CRITICAL', 'MEDIUM', 'LOW'].map((s) => plain.out.indexOf(`  ${s}  `));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(plain.out).not.toContain('\u001b[');
    expect(colour.out).toContain('\u001b[35mCRITICAL\u001b[0m');
    expect(noColor.out).not.toContain('\u001b[');
    expect(flag.out).not.toContain('\u001b[');
  });

  it('fails on a visual diff above threshold (--fail-on-visual off turns it off)', async () => {
    const [diff, off, same] = await Promise.all([
      vigil(['scan', 'http://shop.test/?visual=diff', '--mode', 'functional']),
      vigil(['scan', 'http://shop.test/?visual=diff', '--mode', 'functional', '--fail-on-visual', 'off']),
      vigil(['scan', 'http://shop.test/', '--mode', 'functional']),
    ]);
    expect(diff.code, diff.out).toBe(1);
    expect(diff.out).toContain('FAILED: 1 visual diff(s) above threshold');
    expect(diff.out).toMatch(/Visual change above threshold\s+http:\/\/shop\.test\/\s+3\.2% of pixels changed/);
    expect(off.code, off.out).toBe(0);
    expect(same.code, same.out).toBe(0);
  });

  it('fails on accessibility violations at or above serious by default; --fail-on-a11y moves it', async () => {
    const [minor, serious, critOnly, strict] = await Promise.all([
      vigil(['scan', 'http://shop.test/?a11y=minor,moderate', '--mode', 'functional']),
      vigil(['scan', 'http://shop.test/?a11y=serious', '--mode', 'functional']),
      vigil(['scan', 'http://shop.test/?a11y=serious', '--mode', 'functional', '--fail-on-a11y', 'critical']),
      vigil(['scan', 'http://shop.test/?a11y=minor', '--mode', 'functional', '--fail-on-a11y', 'minor', '--json']),
    ]);
    expect(minor.code, minor.out).toBe(0);
    expect(serious.code, serious.out).toBe(1);
    expect(serious.out).toContain('1 accessibility violation(s) at or above serious');
    expect(serious.out).toMatch(/SERIOUS\s+rule-serious: A serious problem\s+http:\/\/shop\.test\/\s+1 element\(s\), e\.g\. #el0/);
    expect(critOnly.code, critOnly.out).toBe(0);
    expect(strict.code, strict.out).toBe(1);
    const body = json(strict.out);
    expect(body.exit_code).toBe(1);
    expect(body.gate.failing).toMatchObject([{ kind: 'accessibility', check: 'a11y/rule-minor', severity: 'minor', page: 'http://shop.test/' }]);
  });

  it('on a plan without detailed reports, the failed visual and accessibility tasks stand for the sections', async () => {
    const free = { VIGIL_API_KEY: freeKey };
    const [diff, a11y, a11yCritical, budget] = await Promise.all([
      vigil(['scan', 'http://shop.test/?visual=diff', '--mode', 'functional'], free),
      vigil(['scan', 'http://shop.test/?a11y=minor', '--mode', 'functional', '--fail-on-visual', 'off'], free),
      vigil(['scan', 'http://shop.test/?a11y=minor', '--mode', 'functional', '--fail-on-a11y', 'critical'], free),
      vigil(['scan', 'http://shop.test/?lcp=9000', '--mode', 'functional', '--budget', 'lcp=2500'], free),
    ]);
    expect(diff.code, diff.out).toBe(1);
    expect(diff.out).toMatch(/Visual change above threshold\s+\/\s+diff 3\.2% above 0\.5%/);
    expect(a11y.code, a11y.out).toBe(1);
    expect(a11y.out).toContain('Accessibility violations (impact not in these results)');
    expect(a11yCritical.code, a11yCritical.out).toBe(0);
    expect(budget.code, budget.out).toBe(0);
    expect(budget.out).toContain('note: budgets not judged: these results carry no performance metrics');
  });

  it('fails on a page that could not be loaded, and exits 2 (never 0) when the target cannot be reached', async () => {
    const [broken, unreachable, unreachableSec] = await Promise.all([
      vigil(['scan', 'http://shop.test/?broken=1', '--mode', 'functional']),
      vigil(['scan', 'http://shop.test/?unreachable=1', '--mode', 'functional', '--fail-on', 'none', '--fail-on-a11y', 'none']),
      vigil(['scan', 'http://api.test/?unreachable=1', '--fail-on', 'none']),
    ]);
    expect(broken.code, broken.out).toBe(1);
    expect(broken.out).toContain('1 page(s) not loaded');
    expect(broken.out).toMatch(/Page could not be loaded\s+\/broken\s+HTTP 404 Not Found/);
    for (const r of [unreachable, unreachableSec]) {
      expect(r.code, r.out).toBe(2);
      expect(r.out).toContain('SCAN FAILED');
    }
  });

  it('budgets: an error budget missed fails with page, metric, actual and limit; warn only prints; page globs', async () => {
    const url = 'http://shop.test/?lcp=3100&score=80';
    const [lcp, warn, score, other, bad] = await Promise.all([
      vigil(['scan', url, '--mode', 'functional', '--budget', 'lcp=2500']),
      vigil(['scan', url, '--mode', 'functional', '--budget', 'lcp<=2500:warn', '--budget', 'performance>=90:warn']),
      vigil(['scan', url, '--mode', 'functional', '--budget', 'performance>=90', '--json']),
      vigil(['scan', url, '--mode', 'functional', '--budget', '/checkout*@lcp=2500']),
      vigil(['scan', url, '--mode', 'functional', '--budget', 'lcp>=2500']),
    ]);
    expect(lcp.code, lcp.out).toBe(1);
    expect(lcp.out).toContain('1 budget(s) missed');
    expect(lcp.out).toMatch(/Budgets missed:\n\s+page\s+metric\s+actual\s+limit\s+level\n\s+http:\/\/shop\.test\/\s+lcp\s+3100\s+<= 2500\s+error/);
    expect(warn.code, warn.out).toBe(0);
    expect(warn.out).toMatch(/lcp\s+3100\s+<= 2500\s+warn/);
    expect(warn.out).toMatch(/performance\s+80\s+>= 90\s+warn/);
    expect(score.code, score.out).toBe(1);
    expect(json(score.out).gate.budget_violations).toEqual([{ page: 'http://shop.test/', metric: 'performance', actual: 80, limit: '>= 90', level: 'error' }]);
    expect(other.code, other.out).toBe(0);
    expect(bad.code).toBe(3);
    expect(bad.out).toMatch(/lcp is a timing or shift: give an upper limit/);
  });

  it('suppressions: with a reason they never fail and are listed apart; an expired one fails again and says so', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'vigil-ignore-'));
    mkdirSync(join(cwd, '.vigil'));
    writeFileSync(
      join(cwd, '.vigil/ignore.yml'),
      [
        'suppressions:',
        '  - check: c-critical',
        '    operation: get /items/{id}',
        '    parameter: id',
        '    reason: "Accepted risk: public items (SEC-1)"',
        '    until: 2999-12-31',
        '  - check: c-high',
        '    reason: "Was a false positive (SEC-2)"',
        '    until: 2020-01-31',
        '  - check: a11y/rule-serious',
        '    page: http://shop.test/*',
        '    reason: "Legacy page, redesign in Q3"',
        '',
      ].join('\n'),
    );
    const [sec, fn] = await Promise.all([
      vigil(['scan', 'http://api.test/?findings=critical,high', '--output', 'out.sarif', '--output', 'out.xml'], {}, cwd),
      vigil(['scan', 'http://shop.test/?a11y=serious', '--mode', 'functional'], {}, cwd),
    ]);
    expect(sec.code, sec.out).toBe(1);
    expect(sec.out).toMatch(
      /Suppressed \(1, not failing\):\n\s+CRITICAL\s+critical finding on GET \/items\/\{id\}\s+GET \/items\/\{id\}\s+"Accepted risk: public items \(SEC-1\)" until 2999-12-31\s+\.vigil\/ignore\.yml #1/,
    );
    expect(sec.out).toMatch(
      /Failing the gate \(1\):\n\s+HIGH .*suppression expired on 2020-01-31 \("Was a false positive \(SEC-2\)", \.vigil\/ignore\.yml #2\)/,
    );
    // The SARIF keeps the suppressed finding, marked accepted with its reason; the expired one is not.
    const sarif = JSON.parse(readFileSync(join(cwd, 'out.sarif'), 'utf8'));
    const byRule = (id: string) => sarif.runs[0].results.find((r: { ruleId: string }) => r.ruleId === id);
    expect(byRule('c-critical').suppressions).toEqual([
      { kind: 'external', status: 'accepted', justification: 'Accepted risk: public items (SEC-1) (until 2999-12-31)' },
    ]);
    expect(byRule('c-high').suppressions).toBeUndefined();
    // In JUnit the suppressed finding's testcase is skipped with its reason; the expired one still fails.
    const junit = readFileSync(join(cwd, 'out.xml'), 'utf8');
    expect(junit).toMatch(/<skipped message="suppressed: Accepted risk: public items \(SEC-1\)/);
    expect(junit).toMatch(/<failure[^>]*>[^<]*high finding/);
    expect(fn.code, fn.out).toBe(0);
    expect(fn.out).toContain('Legacy page, redesign in Q3');
    // A suppression without a reason is refused, naming the entry.
    const bad = mkdtempSync(join(tmpdir(), 'vigil-ignore-'));
    mkdirSync(join(bad, '.vigil'));
    writeFileSync(join(bad, '.vigil/ignore.yml'), '- check: c-high\n');
    const refused = await vigil(['scan', 'http://api.test/?findings=high'], {}, bad);
    expect(refused.code).toBe(3);
    expect(refused.out).toContain('.vigil/ignore.yml suppression #1: "reason" is required');
  });

  it('a suppression by the fingerprint printed with the finding', async () => {
    const first = await vigil(['scan', 'http://api.test/?findings=high', '--json']);
    const fp = json(first.out).gate.failing[0].key as string;
    expect(fp).toMatch(/^[0-9a-f]{32}$/);
    const cwd = mkdtempSync(join(tmpdir(), 'vigil-fp-'));
    // The 12 characters the CLI prints are enough (any unique prefix of 8 or more).
    expect(first.out).toContain(fp.slice(0, 12));
    writeFileSync(join(cwd, 'ignore.yml'), `- fingerprint: ${fp.slice(0, 12)}\n  reason: triaged\n`);
    const again = await vigil(['scan', 'http://api.test/?findings=high', '--ignore-file', join(cwd, 'ignore.yml')]);
    expect(again.code, again.out).toBe(0);
    expect(again.out).toContain('Suppressed (1, not failing)');
  });

  it('--new-only fails only on findings the previous scan of the target did not have; --baseline takes a scan id or a results file', async () => {
    const url = 'http://legacy.test/?findings=critical,high&grow=1';
    const first = await vigil(['scan', url, '--json', '--fail-on', 'none']);
    expect(first.code, first.out).toBe(0);
    const firstId = json(first.out).scan_id as string;
    const file = join(mkdtempSync(join(tmpdir(), 'vigil-base-')), 'base.json');
    writeFileSync(file, first.out.slice(first.out.indexOf('\n{') + 1));

    const second = await vigil(['scan', url, '--new-only']);
    expect(second.code, second.out).toBe(1);
    expect(second.out).toMatch(new RegExp(`Already in the baseline ${firstId} \\(not failing\\) \\(2\\)`));
    expect(second.out).toMatch(/Failing the gate \(1\):\n\s+HIGH\s+new finding 2/);

    const [byId, byFile] = await Promise.all([vigil(['scan', url, '--baseline', firstId, '--json']), vigil(['scan', url, '--baseline', file, '--json'])]);
    for (const r of [byId, byFile]) {
      expect(r.code, r.out).toBe(1);
      const gate = json(r.out).gate;
      expect(gate.known).toHaveLength(2);
      expect(gate.failing.map((i: { check: string }) => i.check).sort()).toEqual(expect.arrayContaining(['new-2']));
      expect(gate.failing.every((i: { check: string }) => i.check.startsWith('new-'))).toBe(true);
    }

    // Nothing new since the previous scan: passes.
    const stable = 'http://stable.test/?findings=critical';
    expect((await vigil(['scan', stable, '--fail-on', 'none'])).code).toBe(0);
    const again = await vigil(['scan', stable, '--new-only']);
    expect(again.code, again.out).toBe(0);
    expect(again.out).toMatch(/Already in the baseline scn_\S+ \(not failing\) \(1\)/);
  });
});
