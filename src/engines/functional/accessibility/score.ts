/** Pure accessibility scoring helpers (no I/O). */

export type Impact = 'critical' | 'serious' | 'moderate' | 'minor';

/** Lighthouse's per-rule weights by axe impact. */
export const IMPACT_WEIGHTS: Record<Impact, number> = { critical: 10, serious: 7, moderate: 3, minor: 1 };

export interface RuleOutcome {
  /** The rule's impact (for a passed rule, its declared impact; unknown counts as moderate). */
  impact: Impact | null | undefined;
  passed: boolean;
}

/**
 * Lighthouse's recipe: each applicable axe rule is a binary audit weighted by its impact;
 * score = sum(weight of passed rules) / sum(weight of applicable rules) * 100, one decimal.
 * No applicable rules: 100.
 */
export function complianceScore(rules: RuleOutcome[]): number {
  let total = 0;
  let passed = 0;
  for (const r of rules) {
    const w = IMPACT_WEIGHTS[(r.impact ?? 'moderate') as Impact] ?? IMPACT_WEIGHTS.moderate;
    total += w;
    if (r.passed) passed += w;
  }
  if (total === 0) return 100;
  return Math.round((passed / total) * 1000) / 10;
}

/**
 * The WCAG success criterion named by axe tags: "wcag143" -> "1.4.3", "wcag1410" -> "1.4.10".
 * Several criteria are joined with ", "; none: "best-practice" (or the Section 508 tag).
 */
export function wcagCriterion(tags: readonly string[]): string {
  const found: string[] = [];
  for (const t of tags) {
    const m = /^wcag(\d)(\d)(\d{1,2})$/.exec(t);
    if (m) {
      const c = `${m[1]}.${m[2]}.${m[3]}`;
      if (!found.includes(c)) found.push(c);
    }
  }
  if (found.length) return found.join(', ');
  const s508 = tags.find((t) => /^section508\.\d/.test(t));
  return s508 ?? 'best-practice';
}

/** axe tags run for each profile (DESIGN.md). */
export const PROFILE_TAGS = {
  wcag21aa: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'],
  wcag22aa: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'],
  section508: ['wcag2a', 'wcag2aa', 'section508'],
} as const;
