/**
 * Actionable accessibility (issue 15, item 5): the declared axe-core runs, only the profile's rules
 * once, violations carry their nodes, needs-review results are kept apart, and the compliance
 * score is Lighthouse's: checked against Lighthouse's own audits and scoring over the same axe
 * results, on differently shaped fixture pages.
 */
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditAccessibility } from '../../../src/engines/functional/accessibility/audit.js';
import { gatherAccessibility, PatientAxeBuilder, type AxeGathered } from '../../../src/engines/functional/accessibility/gather.js';
import {
  axeRunOptions,
  axeSource,
  MAX_NODES_PER_RULE,
  unknownAxeRules,
  type AccessibilitySettings,
} from '../../../src/engines/functional/accessibility/rules.js';
import { accessibilityScore, LIGHTHOUSE_WEIGHTS } from '../../../src/engines/functional/accessibility/score.js';
import { findChromium, LAUNCH_ARGS } from '../../../src/engines/functional/browser.js';
import { startA11yFixtures, type A11yFixtureServer } from '../../fixtures/a11y-server/server.js';
import { lighthouseAccessibilityScore, lighthouseAuditClass, lighthouseCategory } from './lighthouse-a11y.js';

const DECLARED_AXE = (createRequire(import.meta.url)('axe-core/package.json') as { version: string }).version;
const WCAG21: AccessibilitySettings = { accessibility_profile: 'wcag21aa' };

let browser: Browser;
let site: A11yFixtureServer;
beforeAll(async () => {
  site = await startA11yFixtures(300);
  browser = await chromium.launch({ executablePath: findChromium(), args: LAUNCH_ARGS });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

async function withPage<T>(path: string, f: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(site.url + path, { waitUntil: 'load' });
    return await f(page);
  } finally {
    await context.close();
  }
}

/**
 * axe run directly (the wrapper, the declared source, every result type detailed): the reference.
 * With the patient injection: the wrapper's own drops a frame whose injection takes over a second,
 * which a loaded CI machine reaches.
 */
async function axeDirect(page: Page, settings: AccessibilitySettings) {
  const { runOnly, rules } = axeRunOptions(settings);
  return new PatientAxeBuilder({ page: page as never, axeSource: axeSource() }).options({ runOnly, rules }).analyze();
}

const ids = (rules: Array<{ id: string }>) => rules.map((r) => r.id).sort();
const counts = (rules: Array<{ id: string; nodes: unknown[] }>) => Object.fromEntries(rules.map((r) => [r.id, r.nodes.length]));

describe('Lighthouse weights', () => {
  it("are the declared weights of the scored audits of Lighthouse's accessibility category", async () => {
    const expected: Record<string, number> = {};
    for (const ref of lighthouseCategory().auditRefs) {
      if (ref.weight === 0) continue;
      const audit = await lighthouseAuditClass(ref.id);
      if (audit.meta.scoreDisplayMode === 'informative' || audit.meta.scoreDisplayMode === 'manual') continue;
      expected[ref.id] = ref.weight;
    }
    expect(LIGHTHOUSE_WEIGHTS).toEqual(expected);
  });

  it('count each rule once: a rule in passes and violations has failed; inapplicable, errored and unknown rules are not scored', () => {
    // color-contrast (7) failed though some of its nodes passed; image-alt (10) passed; region: no Lighthouse audit.
    const page = [{ rule: 'color-contrast' }, { rule: 'color-contrast', violated: true }, { rule: 'image-alt' }, { rule: 'region', violated: true }];
    expect(accessibilityScore([page])).toBe(Math.round((10 / 17) * 100));
    expect(accessibilityScore([[...page, { rule: 'label', inapplicable: true }, { rule: 'list', errored: true }]])).toBe(59);
    // Needs review only: passed, as Lighthouse's AxeAudit scores it.
    expect(accessibilityScore([[{ rule: 'aria-hidden-focus' }, { rule: 'button-name', violated: true }]])).toBe(41);
    // The scan's score: every page's rules, each once per page.
    expect(accessibilityScore([[{ rule: 'image-alt' }], [{ rule: 'image-alt', violated: true }]])).toBe(50);
    expect(accessibilityScore([[{ rule: 'region' }]])).toBe(100);
  });
});

describe('the axe-core that runs', () => {
  it('is the declared one, reported in the results', async () => {
    expect(DECLARED_AXE.startsWith('4.14')).toBe(true);
    const ax = await withPage('/a11y-article/', (page) => gatherAccessibility(page, WCAG21));
    expect(ax.engine).toEqual({ name: 'axe-core', version: DECLARED_AXE });
    const framed = await withPage('/a11y-frames/', (page) => gatherAccessibility(page, WCAG21));
    expect(framed.engine.version).toBe(DECLARED_AXE);
  });

  it("does not leave out a frame whose injection takes over a second (the wrapper's own limit)", async () => {
    const ax = await withPage('/a11y-busy-frame/', (page) => gatherAccessibility(page, WCAG21));
    const imageAlt = ax.violations.find((r) => r.id === 'image-alt');
    expect(imageAlt?.nodeCount).toBe(1);
    expect(imageAlt?.nodes[0]!.target).toBe('iframe >>> img');
  }, 60_000);

  it("knows axe's rule ids", () => {
    expect(unknownAxeRules(['image-alt', 'region', 'no-such-rule', 'colour-contrast'])).toEqual(['no-such-rule', 'colour-contrast']);
  });
});

describe.each([
  ['a server-rendered article', '/a11y-article/'],
  ['a client-rendered single-page app', '/a11y-app/'],
  ['a page with a same-origin and a cross-origin frame', '/a11y-frames/'],
  ['a large catalogue', '/a11y-large/'],
])('%s', (_name, path) => {
  let ax: AxeGathered;
  let direct: Awaited<ReturnType<typeof axeDirect>>;
  beforeAll(async () => {
    [ax, direct] = await withPage(path, async (page) => [await gatherAccessibility(page, WCAG21), await axeDirect(page, WCAG21)] as const);
  }, 60_000);

  it('finds what axe run directly finds: the same rules in each list and the same element counts', () => {
    expect(ax.violations.map((r) => r.id).sort()).toEqual(ids(direct.violations));
    expect(ax.incomplete.map((r) => r.id).sort()).toEqual(ids(direct.incomplete));
    expect([...ax.passes].sort()).toEqual(ids(direct.passes));
    expect([...ax.inapplicable].sort()).toEqual(ids(direct.inapplicable));
    expect(Object.fromEntries(ax.violations.map((r) => [r.id, r.nodeCount]))).toEqual(counts(direct.violations));
    expect(Object.fromEntries(ax.incomplete.map((r) => [r.id, r.nodeCount]))).toEqual(counts(direct.incomplete));
    expect(ax.violations.length).toBeGreaterThan(0);
  });

  it("lists each violation's nodes (selector, snippet, what to fix), at most 20 with the count", () => {
    const audit = auditAccessibility(site.url + path, ax);
    for (const v of audit.violations) {
      const raw = direct.violations.find((r) => r.id === v.rule)!;
      expect(v.elements_affected).toBe(raw.nodes.length);
      expect(v.nodes!.length).toBe(Math.min(MAX_NODES_PER_RULE, raw.nodes.length));
      for (const [i, n] of v.nodes!.entries()) {
        expect(n.target).toBe(raw.nodes[i]!.target.flat().join(' >>> '));
        expect(n.html).toBe(raw.nodes[i]!.html);
        expect(n.failure_summary).toMatch(/^Fix (any|all) of the following/);
      }
    }
    expect(audit.needsReview.map((r) => r.rule).sort()).toEqual(ids(direct.incomplete));
    expect(audit.page.needs_review).toBe(direct.incomplete.length);
  });

  it("scores as Lighthouse's own audits and scoring do over the same results", async () => {
    const lighthouse = await lighthouseAccessibilityScore(ax);
    expect(lighthouse).not.toBeNull();
    expect(lighthouse).toBeLessThan(1); // every fixture fails some scored rule
    expect(auditAccessibility(site.url + path, ax).page.compliance_score).toBe(Math.round(lighthouse! * 100));
  });
});

describe('shapes the fixtures cover', () => {
  it("the article has a rule with passing and failing elements; the app has needs-review results; a frame's violation is found by its frame path", async () => {
    const article = await withPage('/a11y-article/', (page) => gatherAccessibility(page, WCAG21));
    expect(article.passes.filter((id) => article.violations.some((v) => v.id === id)).length).toBeGreaterThan(0);
    const app = await withPage('/a11y-app/', (page) => gatherAccessibility(page, { ...WCAG21, accessibility_best_practices: true }));
    expect(app.incomplete.length).toBeGreaterThan(0);
    const framed = await withPage('/a11y-frames/', (page) => gatherAccessibility(page, WCAG21));
    const targets = framed.violations.flatMap((v) => v.nodes.map((n) => n.target));
    expect(targets.some((t) => t.startsWith('#cross >>> '))).toBe(true);
  });
});

describe('rule selection', () => {
  it("runs only the profile's rules; best practices and per-rule enable and disable change the set", async () => {
    const all = (ax: AxeGathered) => new Set([...ax.passes, ...ax.inapplicable, ...ax.violations.map((r) => r.id), ...ax.incomplete.map((r) => r.id)]);
    const [plain, best, tuned] = await withPage('/a11y-article/', async (page) => [
      all(await gatherAccessibility(page, WCAG21)),
      all(await gatherAccessibility(page, { ...WCAG21, accessibility_best_practices: true })),
      all(await gatherAccessibility(page, { ...WCAG21, accessibility_rules: { enable: ['heading-order'], disable: ['color-contrast'] } })),
    ]);
    expect(plain.has('heading-order')).toBe(false);
    expect(plain.has('region')).toBe(false);
    expect(plain.has('color-contrast')).toBe(true);
    expect(best.has('heading-order')).toBe(true);
    expect(best.has('region')).toBe(true);
    expect(tuned.has('heading-order')).toBe(true);
    expect(tuned.has('region')).toBe(false);
    expect(tuned.has('color-contrast')).toBe(false);
  });
});
