/** The performance section: per page score, rating, metrics coloured by rating, budgets. */
import { rateMetric, type RatedMetric } from '../../domain/metric-ratings.js';
import { METRICS as METRIC_TABLE } from '../../domain/metrics.js';
import type { FunctionalReport, ReportBudgetLine, ReportPerformancePage } from '../../domain/results.js';
import type { PerformancePage } from '../../domain/scan.js';
import { Html, html, formatNumber, formatMs } from './markup.js';
import { suppressedNote } from './suppressed.js';

export const RATING_LABEL: Record<PerformancePage['rating'], string> = { good: 'good', 'needs-improvement': 'needs improvement', poor: 'poor' };

export const METRICS: { key: RatedMetric; label: string; format: (v: number) => string }[] = METRIC_TABLE.map((m) => ({
  key: m.field,
  label: m.label,
  format: m.unit === 'ms' ? formatMs : (v: number) => formatNumber(v, 3),
}));

/** A metric's value with its own rating (good, needs improvement, poor) by the contract's thresholds. */
export function metricCell(p: PerformancePage, m: (typeof METRICS)[number]): Html {
  const value = p[m.key];
  if (typeof value !== 'number' || !Number.isFinite(value)) return html`<td class="num">—</td>`;
  const rating = rateMetric(m.key, value);
  return html`<td class="num metric-${rating}" data-metric="${m.key}" data-rating="${rating}" title="${`${m.label}: ${RATING_LABEL[rating]}`}">${m.format(value)}</td>`;
}

/** Budgets as the results carry them (per page, per metric or score): what was allowed, what was measured, the verdict. */
export const budgetsOf = (p: ReportPerformancePage): ReportBudgetLine[] => p.budgets ?? [];

export function budgetsCell(p: ReportPerformancePage): Html {
  const budgets = budgetsOf(p);
  if (budgets.length === 0) return html`<td class="muted">—</td>`;
  return html`<td class="budgets">${budgets.map((b) => {
    const cls = b.passed ? 'budget-pass' : b.level === 'warn' ? 'budget-warn' : 'budget-fail';
    const missed = b.kind === 'max' ? 'over' : 'under';
    const verdict = b.passed ? 'within' : b.level === 'warn' ? `${missed} (warning)` : missed;
    return html`<div class="${cls}" data-budget="${b.metric}" data-budget-passed="${String(b.passed)}">${b.metric}: ${formatNumber(b.actual, b.actual % 1 ? 3 : 0)} / ${b.kind === 'max' ? '≤' : '≥'} ${formatNumber(b.limit, b.limit % 1 ? 3 : 0)} ${verdict}${suppressedNote(b.suppressed)}</div>`;
  })}</td>`;
}

export function performanceSection(perf: FunctionalReport['performance']): Html {
  const withBudgets = perf.pages.some((p) => budgetsOf(p).length > 0);
  return html`<section id="performance" aria-labelledby="perf-title">
<h2 id="perf-title">Performance</h2>
<div class="cards">
<div class="card"><div class="n" data-score="performance">${formatNumber(perf.performance_score)}</div><div class="l">Performance score</div></div>
<div class="card"><div class="n">${formatNumber(perf.pages_tested)}</div><div class="l">Pages tested</div></div>
</div>
${
  perf.pages.length === 0
    ? html`<p class="empty">No pages were measured.</p>`
    : html`<table class="performance">
<thead><tr><th>Page</th><th class="num">Score</th><th>Rating</th>${METRICS.map((m) => html`<th class="num">${m.label}</th>`)}${withBudgets ? html`<th>Budgets</th>` : ''}</tr></thead>
<tbody>
${perf.pages.map(
  (
    p,
  ) => html`<tr data-rating="${p.rating}"><td class="url mono">${p.page_url}${p.throttling ? html`<div class="refs">throttling: ${p.throttling}</div>` : ''}</td><td class="num">${formatNumber(p.performance_score)}</td>
<td><span class="badge ${p.rating}">${RATING_LABEL[p.rating] ?? p.rating}</span></td>
${METRICS.map((m) => metricCell(p, m))}${withBudgets ? budgetsCell(p) : ''}</tr>`,
)}
</tbody>
</table>
<p class="muted">Each metric is coloured by its own rating (good, needs improvement, poor); the page's rating is the worst of its Core Web Vitals (LCP, CLS, FID). LCP largest contentful paint, FID first input delay, CLS cumulative layout shift, TTFB time to first byte, FCP first contentful paint, TBT total blocking time, SI speed index, TTI time to interactive.${withBudgets ? '' : ' No performance budgets were set for this scan.'}</p>`
}
</section>`;
}

// ---------------------------------------------------------------------------------------------------
