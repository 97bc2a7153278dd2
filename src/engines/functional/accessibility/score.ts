/** Pure accessibility scoring helpers (no I/O). */

export type Impact = 'critical' | 'serious' | 'moderate' | 'minor';

/**
 * Lighthouse 12's accessibility category (core/config/default-config.js), the audits that count:
 * axe rule id -> declared weight. Left out, as Lighthouse's scoring leaves them out: the manual
 * audits and the hidden ones (weight 0) and the informative ones (bypass, duplicate-id-aria,
 * form-field-multiple-labels, th-has-data-cells, video-caption). A test reads Lighthouse's own
 * config and audits and checks this table against them.
 */
export const LIGHTHOUSE_WEIGHTS: Readonly<Record<string, number>> = {
  accesskeys: 7,
  'aria-allowed-attr': 10,
  'aria-allowed-role': 1,
  'aria-command-name': 7,
  'aria-conditional-attr': 7,
  'aria-deprecated-role': 1,
  'aria-dialog-name': 7,
  'aria-hidden-body': 10,
  'aria-hidden-focus': 7,
  'aria-input-field-name': 7,
  'aria-meter-name': 7,
  'aria-progressbar-name': 7,
  'aria-prohibited-attr': 7,
  'aria-required-attr': 10,
  'aria-required-children': 10,
  'aria-required-parent': 10,
  'aria-roles': 7,
  'aria-text': 7,
  'aria-toggle-field-name': 7,
  'aria-tooltip-name': 7,
  'aria-treeitem-name': 7,
  'aria-valid-attr-value': 10,
  'aria-valid-attr': 10,
  'button-name': 10,
  'color-contrast': 7,
  'definition-list': 7,
  dlitem: 7,
  'document-title': 7,
  'frame-title': 7,
  'heading-order': 3,
  'html-has-lang': 7,
  'html-lang-valid': 7,
  'html-xml-lang-mismatch': 3,
  'image-alt': 10,
  'image-redundant-alt': 1,
  'input-button-name': 10,
  'input-image-alt': 10,
  label: 7,
  'link-in-text-block': 7,
  'link-name': 7,
  list: 7,
  listitem: 7,
  'meta-refresh': 10,
  'meta-viewport': 10,
  'object-alt': 7,
  'select-name': 7,
  'skip-link': 3,
  tabindex: 7,
  'table-duplicate-name': 1,
  'target-size': 7,
  'td-headers-attr': 7,
  'valid-lang': 7,
};

/** Where axe put a rule; a rule in several lists of one run is read as Lighthouse reads it (see ruleScore). */
export interface RuleStatus {
  rule: string;
  /** In axe's violations. */
  violated?: boolean;
  /** In axe's inapplicable (matched no element). */
  inapplicable?: boolean;
  /** axe reported an error for it (in incomplete, with `error`). */
  errored?: boolean;
}

/**
 * One rule's score as Lighthouse's AxeAudit gives it: not applicable -> not scored; an axe error ->
 * not scored (Lighthouse makes the whole category null; Vigil leaves the rule out and lists it
 * under needs review); in violations -> 0, even if also in passes or incomplete; otherwise
 * (passes, or needs review only) -> 1. Rules Lighthouse has no scored audit for are not scored.
 */
export function ruleScore(o: RuleStatus): { score: 0 | 1; weight: number } | undefined {
  const weight = LIGHTHOUSE_WEIGHTS[o.rule];
  if (weight === undefined || o.inapplicable || o.errored) return undefined;
  return { score: o.violated ? 0 : 1, weight };
}

/** The rules of one run, each once: the lists axe put each rule in merged. */
export function mergeStatuses(outcomes: readonly RuleStatus[]): RuleStatus[] {
  const byRule = new Map<string, RuleStatus>();
  for (const o of outcomes) {
    const seen = byRule.get(o.rule);
    if (!seen) byRule.set(o.rule, { ...o });
    else {
      seen.violated ||= o.violated;
      seen.errored ||= o.errored;
      // Inapplicable only when axe found nothing to check anywhere (e.g. in no frame).
      seen.inapplicable = !!seen.inapplicable && !!o.inapplicable;
    }
  }
  return [...byRule.values()];
}

/**
 * Lighthouse's category score (core/scoring.js arithmeticMean) over the given pages' rules: the
 * weighted mean of the rule scores, rounded to two decimals, x 100. Each rule counts once per page
 * (pass one page's rules for a page score, every page's rules for the scan's). No scored rule: 100.
 */
export function accessibilityScore(pages: ReadonlyArray<readonly RuleStatus[]>): number {
  let total = 0;
  let sum = 0;
  for (const rules of pages) {
    for (const o of mergeStatuses(rules)) {
      const s = ruleScore(o);
      if (!s) continue;
      total += s.weight;
      sum += s.score * s.weight;
    }
  }
  if (total === 0) return 100;
  return Math.round((sum / total) * 100);
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
