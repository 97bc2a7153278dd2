/**
 * Lighthouse's own accessibility scoring over a set of axe results: its audits
 * (core/audits/accessibility/*.js, AxeAudit), its result generation (Audit.generateAuditResult)
 * and its category scoring (core/scoring.js) with the weights of its default config. Only the
 * audits whose axe rule ran are in the category, since Lighthouse would score a rule it did not
 * see as passed.
 */
import { Audit } from 'lighthouse/core/audits/audit.js';
import defaultConfig from 'lighthouse/core/config/default-config.js';
import { ReportScoring } from 'lighthouse/core/scoring.js';
import type { AxeGathered, AxeRuleResult } from '../../../src/engines/functional/accessibility/gather.js';

interface LhAuditClass {
  meta: { id: string; scoreDisplayMode?: string };
  audit(artifacts: unknown): unknown;
}

export async function lighthouseAuditClass(id: string): Promise<LhAuditClass> {
  return ((await import(`lighthouse/core/audits/accessibility/${id}.js`)) as { default: LhAuditClass }).default;
}

/** The accessibility category of Lighthouse's default config. */
export function lighthouseCategory(): { auditRefs: Array<{ id: string; weight: number; group?: string }> } {
  return (defaultConfig as unknown as { categories: Record<string, { auditRefs: Array<{ id: string; weight: number; group?: string }> }> }).categories
    .accessibility!;
}

const toArtifact = (r: AxeRuleResult) => ({
  id: r.id,
  impact: r.impact ?? undefined,
  tags: r.tags,
  nodes: r.nodes.map((n) => ({ target: [n.target], failureSummary: n.failureSummary, node: {}, relatedNodes: [] })),
  ...(r.error !== undefined ? { error: { name: 'Error', message: r.error } } : {}),
});

/** Lighthouse's accessibility score (0-1, two decimals; null as Lighthouse gives it) over `ax`. */
export async function lighthouseAccessibilityScore(ax: AxeGathered): Promise<number | null> {
  const ran = new Set([...ax.passes, ...ax.inapplicable, ...ax.violations.map((r) => r.id), ...ax.incomplete.map((r) => r.id)]);
  const artifacts = {
    Accessibility: {
      violations: ax.violations.map(toArtifact),
      incomplete: ax.incomplete.map(toArtifact),
      notApplicable: ax.inapplicable.map((id) => ({ id })),
      passes: ax.passes.map((id) => ({ id })),
      version: ax.engine.version,
    },
  };
  const category = lighthouseCategory();
  const auditRefs = category.auditRefs.filter((ref) => ran.has(ref.id));
  const results: Record<string, unknown> = {};
  for (const ref of auditRefs) {
    const AuditClass = await lighthouseAuditClass(ref.id);
    const product = await AuditClass.audit(artifacts);
    results[ref.id] = (Audit as unknown as { generateAuditResult(c: unknown, p: unknown): unknown }).generateAuditResult(AuditClass, product);
  }
  const scored = (ReportScoring as unknown as { scoreAllCategories(c: unknown, r: unknown): Record<string, { score: number | null }> }).scoreAllCategories(
    { accessibility: { ...category, auditRefs } },
    results,
  );
  return scored.accessibility!.score;
}
