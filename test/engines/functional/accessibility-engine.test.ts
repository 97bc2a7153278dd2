/** The functional engine's accessibility results end to end: elements, needs review, engine version, Lighthouse's score, options. */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFunctionalEngine } from '../../../src/engines/functional/index.js';
import { startA11yFixtures, type A11yFixtureServer } from '../../fixtures/a11y-server/server.js';
import { functionalContext } from '../../helpers/functional-engine.js';

const DECLARED_AXE = (createRequire(import.meta.url)('axe-core/package.json') as { version: string }).version;
const engine = createFunctionalEngine();
let site: A11yFixtureServer;
beforeAll(async () => {
  site = await startA11yFixtures(100);
});
afterAll(async () => {
  await engine.close();
  await site?.close();
});

describe('functional engine: accessibility', () => {
  it('reports each violation with its elements, needs review apart, the axe-core version, and one score per page and for the scan', async () => {
    const out = await engine.run(
      functionalContext({ url: site.url, options: { pages: ['/a11y-article/', '/a11y-app/'], accessibility_best_practices: true } }),
    );
    const a11y = out.functional!.accessibility;
    expect(a11y.engine).toEqual({ name: 'axe-core', version: DECLARED_AXE });
    expect(a11y.pages.map((p) => new URL(p.page_url).pathname)).toEqual(['/a11y-article/', '/a11y-app/']);
    const imageAlt = a11y.violations.find((v) => v.rule === 'image-alt' && v.page_url.endsWith('/a11y-article/'))!;
    expect(imageAlt.nodes!.length).toBe(imageAlt.elements_affected);
    expect(imageAlt.nodes!.some((n) => n.html.startsWith('<img') && n.target.length > 0 && n.failure_summary.startsWith('Fix'))).toBe(true);
    // Best practices ran: heading-order is a best-practice rule the article breaks (h1 then h3).
    expect(a11y.violations.some((v) => v.rule === 'heading-order' && v.wcag === 'best-practice')).toBe(true);
    expect(a11y.needs_review!.length).toBeGreaterThan(0);
    for (const p of a11y.pages) {
      expect(p.needs_review).toBe(a11y.needs_review!.filter((r) => r.page_url === p.page_url).length);
      expect(p.compliance_score).toBeGreaterThan(0);
      expect(p.compliance_score).toBeLessThan(100);
    }
    const [low, high] = a11y.pages.map((p) => p.compliance_score).sort((x, y) => x - y);
    expect(a11y.compliance_score).toBeGreaterThanOrEqual(low!);
    expect(a11y.compliance_score).toBeLessThanOrEqual(high!);
    const task = out.tasks.find((t) => t.name.startsWith('Accessibility') && t.name.endsWith('/a11y-article/'))!;
    expect(task.status).toBe('failed');
  }, 120_000);

  it('disabled rules are not run', async () => {
    const out = await engine.run(
      functionalContext({ url: site.url, options: { pages: ['/a11y-article/'], accessibility_rules: { disable: ['image-alt', 'color-contrast'] } } }),
    );
    const rules = out.functional!.accessibility.violations.map((v) => v.rule);
    expect(rules).not.toContain('image-alt');
    expect(rules).not.toContain('color-contrast');
    expect(rules).toContain('button-name');
  }, 120_000);
});
