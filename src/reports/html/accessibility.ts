/** The accessibility section: violations grouped per rule (fix text once, elements collapsed), needs review, per page. */
import type { FunctionalReport, ReportViolation } from '../../domain/results.js';
import type { AccessibilityNode, AccessibilityViolation } from '../../domain/scan.js';
import { Html, html, IMPACT_RANK, formatNumber, plural } from './markup.js';
import { suppressedNote } from './suppressed.js';

/** An element's HTML as shown: axe's opening tag, cut to this many characters (the selector names it already). */
export const SNIPPET_MAX = 240;
export const snippet = (text: string) => (text.length > SNIPPET_MAX ? `${text.slice(0, SNIPPET_MAX)}…` : text);

/** The elements of one axe rule on one page: selector, HTML and what to fix, then how many more there are. */
export function accessibilityNodes(nodes: readonly AccessibilityNode[] | undefined, total: number, open: boolean): Html | string {
  if (!nodes?.length) return '';
  const more = total - nodes.length;
  return html`<details class="a11y-nodes"${open ? ' open' : ''}><summary>${plural(total, 'element')}</summary><ul class="a11y-nodes">
${nodes.map((n) => html`<li><code class="target">${n.target}</code><pre class="snippet">${snippet(n.html)}</pre>${n.failure_summary ? html`<div class="fix">${n.failure_summary}</div>` : ''}</li>`)}
</ul>${more > 0 ? html`<p class="muted">and ${plural(more, 'more element')} not listed</p>` : ''}</details>`;
}

/** One axe rule over every page it failed on: the worst impact, its pages, and its elements. */
export interface RuleGroup {
  rule: string;
  impact: AccessibilityViolation['impact'];
  wcag: string;
  description: string;
  help_url: string;
  violations: ReportViolation[];
  elements: number;
}

export function groupByRule(violations: readonly ReportViolation[]): RuleGroup[] {
  const groups = new Map<string, RuleGroup>();
  for (const v of violations) {
    const g = groups.get(v.rule);
    if (!g)
      groups.set(v.rule, {
        rule: v.rule,
        impact: v.impact,
        wcag: v.wcag,
        description: v.description,
        help_url: v.help_url,
        violations: [v],
        elements: v.elements_affected,
      });
    else {
      g.violations.push(v);
      g.elements += v.elements_affected;
      if ((IMPACT_RANK[v.impact] ?? 9) < (IMPACT_RANK[g.impact] ?? 9)) g.impact = v.impact;
    }
  }
  return [...groups.values()].sort((x, y) => (IMPACT_RANK[x.impact] ?? 9) - (IMPACT_RANK[y.impact] ?? 9) || x.rule.localeCompare(y.rule));
}

/** How many of a rule's pages are suppressed, when some are (each page says why under "which"). */
function suppressedCount(group: RuleGroup): Html | '' {
  const n = group.violations.filter((v) => v.suppressed).length;
  return n
    ? html` <span class="badge" data-suppressed-pages="${String(n)}">${n === group.violations.length ? 'all suppressed' : `${n} suppressed`}</span>`
    : '';
}

/**
 * A rule's fix, written once: axe's "what to fix" texts of its elements, each distinct text once with the
 * number of elements it is for (axe repeats the same text on every element).
 */
export function ruleFixes(group: RuleGroup): Html | '' {
  const counts = new Map<string, number>();
  for (const v of group.violations)
    for (const n of v.nodes ?? []) if (n.failure_summary) counts.set(n.failure_summary, (counts.get(n.failure_summary) ?? 0) + 1);
  if (counts.size === 0) return '';
  return html`<div class="rule-fix" data-fixes="${String(counts.size)}"><strong>How to fix</strong>${[...counts].map(([text, n]) => html`<div class="fix">${counts.size > 1 ? html`<span class="muted">${plural(n, 'element')}: </span>` : ''}${text}</div>`)}</div>`;
}

/** A rule's elements, collapsed: per page, each element's selector and HTML on one line (the fix is above, once). */
export function ruleElements(group: RuleGroup): Html | '' {
  const listed = group.violations.filter((v) => v.nodes?.length);
  if (listed.length === 0) return '';
  return html`<details class="a11y-nodes"><summary>${plural(group.elements, 'element')}${group.violations.length > 1 ? ` on ${plural(group.violations.length, 'page')}` : ''}</summary>
${listed.map((v) => {
  const more = v.elements_affected - v.nodes!.length;
  return html`<div class="a11y-page"><div class="url mono">${v.page_url}</div><ul class="a11y-nodes compact">
${v.nodes!.map((n) => html`<li><code class="target">${n.target}</code> <code class="snippet">${snippet(n.html)}</code></li>`)}
</ul>${more > 0 ? html`<p class="muted">and ${plural(more, 'more element')} not listed</p>` : ''}</div>`;
})}</details>`;
}

export function accessibilitySection(a11y: FunctionalReport['accessibility']): Html {
  const violations = [...a11y.violations].sort((x, y) => (IMPACT_RANK[x.impact] ?? 9) - (IMPACT_RANK[y.impact] ?? 9));
  const review = [...(a11y.needs_review ?? [])].sort((x, y) => (IMPACT_RANK[x.impact ?? 'minor'] ?? 9) - (IMPACT_RANK[y.impact ?? 'minor'] ?? 9));
  return html`<section id="accessibility" aria-labelledby="a11y-title">
<h2 id="a11y-title">Accessibility</h2>
<div class="cards">
<div class="card"><div class="n" data-score="accessibility">${formatNumber(a11y.compliance_score, 1)}</div><div class="l">Compliance score</div></div>
<div class="card"><div class="n">${a11y.wcag_level}</div><div class="l">Profile</div></div>
<div class="card"><div class="n">${formatNumber(a11y.pages_scanned)}</div><div class="l">Pages scanned</div></div>
<div class="card ${a11y.total_violations > 0 ? 'fail' : 'pass'}"><div class="n">${formatNumber(a11y.total_violations)}</div><div class="l">Violations</div></div>
<div class="card"><div class="n" data-count="needs-review">${formatNumber(a11y.total_needs_review ?? 0)}</div><div class="l">Needs review</div></div>
</div>
${a11y.engine ? html`<p class="muted" data-engine="axe-core">Audited with ${a11y.engine.name} ${a11y.engine.version}; the compliance score is Lighthouse's accessibility score over the rules it ran.</p>` : ''}
${
  violations.length === 0
    ? html`<p class="empty">No violations found.</p>`
    : html`<table class="violations">
<thead><tr><th>Rule</th><th>Impact</th><th>WCAG</th><th>Pages</th><th class="num">Elements</th><th>Description, how to fix, elements</th></tr></thead>
<tbody>
${groupByRule(violations).map(
  (
    g,
  ) => html`<tr data-impact="${g.impact}" data-rule="${g.rule}"><td class="mono">${g.rule}</td><td><span class="badge impact-${g.impact}">${g.impact}</span></td><td>${g.wcag}</td>
<td class="url mono">${g.violations.length === 1 ? html`${g.violations[0]!.page_url}${suppressedNote(g.violations[0]!.suppressed)}` : html`${plural(g.violations.length, 'page')}${suppressedCount(g)}<details><summary>which</summary>${g.violations.map((v) => html`<div>${v.page_url}${suppressedNote(v.suppressed)}</div>`)}</details>`}</td><td class="num">${formatNumber(g.elements)}</td>
<td>${g.description}<div class="refs url mono">${g.help_url}</div>${ruleFixes(g)}${ruleElements(g)}</td></tr>`,
)}
</tbody>
</table>`
}
${
  review.length > 0
    ? html`<h3 id="a11y-review">Needs review</h3>
<p class="muted">axe-core could not decide on these elements (for instance text over a background image): a person has to check them. They do not lower the score.</p>
<table class="needs-review">
<thead><tr><th>Rule</th><th>Impact</th><th>WCAG</th><th>Page</th><th class="num">Elements</th><th>Description, help and elements</th></tr></thead>
<tbody>
${review.map(
  (
    r,
  ) => html`<tr data-review="${r.rule}"><td class="mono">${r.rule}</td><td>${r.impact ? html`<span class="badge impact-${r.impact}">${r.impact}</span>` : '—'}</td><td>${r.wcag}</td>
<td class="url mono">${r.page_url}</td><td class="num">${formatNumber(r.elements_affected)}</td>
<td>${r.description}<div class="refs url mono">${r.help_url}</div>${r.error ? html`<div class="fix">axe-core failed on this rule: ${r.error}</div>` : ''}${accessibilityNodes(r.nodes, r.elements_affected, false)}</td></tr>`,
)}
</tbody>
</table>`
    : ''
}
${
  a11y.pages.length > 0
    ? html`<h3>Per page</h3>
<table class="a11y-pages">
<thead><tr><th>Page</th><th class="num">Violations</th><th class="num">Needs review</th><th class="num">Score</th></tr></thead>
<tbody>
${a11y.pages.map((p) => html`<tr><td class="url mono">${p.page_url}</td><td class="num">${formatNumber(p.violations)}</td><td class="num">${p.needs_review === undefined ? '—' : formatNumber(p.needs_review)}</td><td class="num">${formatNumber(p.compliance_score, 1)}</td></tr>`)}
</tbody>
</table>`
    : ''
}
</section>`;
}
