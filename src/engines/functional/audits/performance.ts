/** The performance audit: a page's score and rating from the metrics of its load. */
import type { PerformancePage } from '../../../domain/scan.js';
import { pageRating, performanceScore } from '../performance/score.js';
import type { Audit } from '../types.js';

export const performanceAudit: Audit<PerformancePage> = {
  id: 'performance',
  title: () => 'Performance',
  requires: ['load'],
  run({ load }, { url, scan }) {
    const m = load.metrics;
    return { result: { page_url: url, performance_score: performanceScore(m, scan.options.device), ...m, rating: pageRating(m) } };
  },
  summarize(pages) {
    const avg = (xs: number[]) => (xs.length ? Math.round((xs.reduce((s, x) => s + x, 0) / xs.length) * 10) / 10 : 0);
    return { performance: { performance_score: avg(pages.map((p) => p.performance_score)), pages } };
  },
};
