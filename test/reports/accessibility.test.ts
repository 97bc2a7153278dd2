/** The accessibility parts of the reports: each violation's elements, the needs-review results, the axe-core version. */
import { describe, expect, it } from 'vitest';
import { renderCsvReport } from '../../src/reports/csv.js';
import { renderHtmlReport } from '../../src/reports/html.js';
import { HOSTILE, fullReport } from './fixtures.js';
import { parseCsv, textContent } from './parse.js';

describe('accessibility in the HTML export', () => {
  const report = fullReport();
  const a11y = report.functional!.accessibility;
  const html = renderHtmlReport(report);
  const text = textContent(html);

  it("lists each violation's elements: selector, HTML snippet (escaped) and what to fix", () => {
    const imageAlt = a11y.violations.find((v) => v.rule === 'image-alt')!;
    for (const n of imageAlt.nodes!) {
      expect(text).toContain(n.target);
      expect(text).toContain(n.html);
    }
    expect(text).toContain('Element does not have an alt attribute');
    expect(html).not.toContain(HOSTILE.script);
    // Collapsed by default: a long list of elements does not make the report tall.
    expect(html).toContain('<details class="a11y-nodes"><summary>2 elements</summary>');
  });

  it('groups a rule over its pages: its fix text once, its elements compact and collapsed', () => {
    const big = fullReport();
    const a = big.functional!.accessibility;
    const fix = 'Fix any of the following:\n  Element does not have an alt attribute\n  aria-label attribute does not exist or is empty';
    const node = (i: number) => ({ target: `img.item-${i}`, html: `<img class="item-${i}" src="/i${i}.jpg">`, failure_summary: fix });
    const pages = Array.from({ length: 15 }, (_, p) => `https://shop.test/page-${p}`);
    a.violations = pages.map((page_url) => ({
      ...a.violations.find((v) => v.rule === 'image-alt')!,
      page_url,
      elements_affected: 33,
      nodes: Array.from({ length: 33 }, (_, i) => node(i)),
    }));
    const grouped = renderHtmlReport(big);
    // One row for the rule, the fix written once for its 495 elements, each element's selector listed.
    expect([...grouped.matchAll(/<tr data-impact="[a-z]+" data-rule="image-alt"/g)]).toHaveLength(1);
    expect(grouped.split('Element does not have an alt attribute').length - 1).toBe(1);
    expect(grouped).toContain('<details class="a11y-nodes"><summary>495 elements on 15 pages</summary>');
    expect(textContent(grouped)).toContain('img.item-32');
    // Well under what 495 repetitions of the fix text alone would weigh.
    expect(grouped.length - renderHtmlReport({ ...big, functional: { ...big.functional!, accessibility: { ...a, violations: [] } } }).length).toBeLessThan(
      495 * (fix.length + 120),
    );
  });

  it('shows the needs-review results apart, with their count and elements, and the axe-core version', () => {
    expect(html).toContain('data-count="needs-review">1<');
    expect(html).toContain('id="a11y-review"');
    expect(html).toContain('<tr data-review="color-contrast">');
    expect(text).toContain('.hero > h1');
    expect(html).not.toContain(HOSTILE.svg);
    expect(text).toContain('Audited with axe-core 4.14.1');
  });

  it('older results without elements, needs review or engine still render', () => {
    const old = fullReport();
    const o = old.functional!.accessibility;
    o.violations = o.violations.map(({ nodes: _nodes, ...v }) => v);
    o.needs_review = [];
    o.total_needs_review = 0;
    o.engine = null;
    o.pages = o.pages.map(({ needs_review: _n, ...p }) => p);
    const rendered = renderHtmlReport(old);
    expect(rendered).not.toContain('a11y-nodes"');
    expect(rendered).not.toContain('id="a11y-review"');
    expect(rendered).not.toContain('Audited with');
  });
});

describe('accessibility in the CSV export', () => {
  it("an accessibility task's row lists its page's violations and needs-review rules with their selectors", () => {
    const rows = parseCsv(renderCsvReport(fullReport()));
    const header = rows[0]!;
    const column = header.indexOf('accessibility');
    expect(column).toBe(header.indexOf('invented_values') + 1);
    const cart = rows.find((r) => r[header.indexOf('name')] === 'Accessibility: /cart')!;
    const lines = cart[column]!.split('\n');
    expect(lines[0]).toBe(`violation image-alt (critical, 1.1.1): 2 elements: main > img.product | #chat >>> img[title="${HOSTILE.singleQuote}"]`);
    expect(lines[1]).toBe('violation region (moderate, best-practice): 1 element');
    for (const row of rows.slice(1)) if (!row[header.indexOf('name')]!.startsWith('Accessibility')) expect(row[column]).toBe('');
  });
});
