/**
 * The performance audit: a page's score and rating from the metrics of its load. The task fails
 * when the page is rated poor (a Core Web Vital beyond its needs-improvement threshold), when it
 * misses an `error` budget of options.budgets (each page lists the budgets that apply to it; the
 * accessibility budget is the accessibility audit's), and when nothing was painted (no contentful
 * paint: there is nothing to score, so the score is null).
 */
import { ACCESSIBILITY_BUDGET, judgeBudgets, overBudgetVerdict } from '../../../domain/budgets.js';
import { METRIC_BY_FIELD } from '../../../domain/metrics.js';
import type { PerformancePage } from '../../../domain/scan.js';
import { DECIDING_METRICS, pageRating, performanceScore, rateMetric, RATING_THRESHOLDS, type RatedMetric } from '../performance/score.js';
import type { Audit } from '../types.js';

const shown = (metric: RatedMetric, value: number) => (metric === 'cls' ? String(value) : `${value} ms`);

/** "rated poor: LCP 4600 ms (poor above 4000 ms), CLS 0.31 (poor above 0.25)" */
export function poorVerdict(page: Pick<PerformancePage, RatedMetric>): string | undefined {
  const poor = DECIDING_METRICS.filter((k) => rateMetric(k, page[k]) === 'poor');
  if (!poor.length) return undefined;
  return `rated poor: ${poor.map((k) => `${METRIC_BY_FIELD[k].label} ${shown(k, page[k])} (poor above ${shown(k, RATING_THRESHOLDS[k][1])})`).join(', ')}`;
}

export const performanceAudit: Audit<PerformancePage> = {
  id: 'performance',
  title: () => 'Performance',
  requires: ['load', 'throttled'],
  run({ throttled: load }, { url, scan }) {
    const m = load.metrics;
    const painted = m.fcp_ms > 0;
    const page: PerformancePage = {
      page_url: url,
      performance_score: painted ? performanceScore(m, scan.options.device) : null,
      ...m,
      rating: pageRating(m),
      throttling: load.throttling,
    };
    if (!painted) return { result: page, failure: 'no contentful paint: the page painted nothing to measure' };
    const budgets = judgeBudgets(
      (scan.options.budgets ?? []).filter((b) => b.metric !== ACCESSIBILITY_BUDGET),
      page,
    );
    if (budgets.length) page.budgets = budgets;
    const verdicts = [poorVerdict(page), overBudgetVerdict(budgets)].filter(Boolean);
    return { result: page, failure: verdicts.length ? verdicts.join('; ') : undefined };
  },
  summarize(pages) {
    const scores = pages.flatMap((p) => (p.performance_score === null ? [] : [p.performance_score]));
    const mean = scores.length ? Math.round((scores.reduce((s, x) => s + x, 0) / scores.length) * 10) / 10 : null;
    return { performance: { performance_score: mean, pages } };
  },
};
