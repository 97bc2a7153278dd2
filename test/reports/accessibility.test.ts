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

  it('lists each violation\'s elements: selector, HTML snippet (escaped) and what to fix', () => {
    const imageAlt = a11y.violations.find((v) => v.rule === 'image-alt')!;
    for (const n of imageAlt.nodes!) {
      expect(text).toContain(n.target);
      expect(text).toContain(n.html);
    }
    expect(text).toContain('Element does not have an alt attribute');
    expect(html).not.toContain(HOSTILE.script);
    expect(html).toContain('<details class="a11y-nodes" open><summary>2 elements</summary>');
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
  it('an accessibility task\'s row lists its page\'s violations and needs-review rules with their selectors', () => {
    const rows = parseCsv(renderCsvReport(fullReport()));
    const header = rows[0]!;
    const column = header.indexOf('accessibility');
    expect(column).toBe(header.length - 1);
    const cart = rows.find((r) => r[header.indexOf('name')] === 'Accessibility: /cart')!;
    const lines = cart[column]!.split('\n');
    expect(lines[0]).toBe(`violation image-alt (critical, 1.1.1): 2 elements: main > img.product | #chat >>> img[title="${HOSTILE.singleQuote}"]`);
    expect(lines[1]).toBe('violation region (moderate, best-practice): 1 element');
    for (const row of rows.slice(1)) if (!row[header.indexOf('name')]!.startsWith('Accessibility')) expect(row[column]).toBe('');
  });
});
