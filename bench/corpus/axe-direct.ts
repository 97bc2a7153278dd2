/**
 * axe-core run directly, the reference Vigil's accessibility results must equal: the declared
 * axe-core's own source, through @axe-core/playwright, with the default profile's tags (WCAG 2.1
 * A and AA), on a page loaded to its load event. Returns what is compared: per rule, its impact and
 * how many elements it flagged, for violations and for needs-review (axe's "incomplete") results.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

export interface RuleCount {
  rule: string;
  impact: string | null;
  nodes: number;
}

export interface AxeFigures {
  violations: RuleCount[];
  needsReview: RuleCount[];
}

const WCAG21AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
let source: string | undefined;

const byRule = (a: RuleCount, b: RuleCount) => a.rule.localeCompare(b.rule);

export async function axeDirect(page: Page): Promise<AxeFigures> {
  source ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const r = await new AxeBuilder({ page: page as never, axeSource: source }).withTags(WCAG21AA_TAGS).analyze();
  const counts = (list: typeof r.violations) => list.map((x) => ({ rule: x.id, impact: x.impact ?? null, nodes: x.nodes.length })).sort(byRule);
  return { violations: counts(r.violations), needsReview: counts(r.incomplete) };
}

/** The same figures from Vigil's accessibility results for one page. */
export function vigilFigures(
  a11y: {
    violations: Array<{ rule: string; impact: string | null; page_url: string; elements_affected: number }>;
    needs_review?: Array<{ rule: string; impact: string | null; page_url: string; elements_affected: number }>;
  },
  url: string,
): AxeFigures {
  const pick = (list: Array<{ rule: string; impact: string | null; page_url: string; elements_affected: number }>) =>
    list
      .filter((v) => v.page_url === url)
      .map((v) => ({ rule: v.rule, impact: v.impact, nodes: v.elements_affected }))
      .sort(byRule);
  return { violations: pick(a11y.violations), needsReview: pick(a11y.needs_review ?? []) };
}

/** Where two results differ ('' when identical): "violations: color-contrast:serious:3 vs color-contrast:serious:4". */
export function axeDifference(reference: AxeFigures, value: AxeFigures): string {
  const out: string[] = [];
  for (const k of ['violations', 'needsReview'] as const) {
    const a = new Set(reference[k].map((x) => `${x.rule}:${x.impact}:${x.nodes}`));
    const b = new Set(value[k].map((x) => `${x.rule}:${x.impact}:${x.nodes}`));
    const onlyA = [...a].filter((x) => !b.has(x));
    const onlyB = [...b].filter((x) => !a.has(x));
    if (onlyA.length || onlyB.length) out.push(`${k}: axe ${onlyA.join(',') || '-'} / Vigil ${onlyB.join(',') || '-'}`);
  }
  return out.join('; ');
}
