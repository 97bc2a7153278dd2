/**
 * The accessibility gatherer: runs the declared axe-core once in a loaded page, with only the
 * profile's rules, and keeps what the audit needs (each rule's list, impact, tags, texts and its
 * first nodes with their count).
 *
 * A page with one frame (most pages) gets axe injected and run in place: one `axe.run`, results
 * cut down inside the page so thousands of passed nodes never cross the protocol. A page with
 * frames is handed to @axe-core/playwright with the declared axe source: it injects axe into every
 * frame, runs `axe.runPartial` in each and `axe.finishRun` in a blank page, as axe requires for
 * frames (cross-origin ones included). Its injection into each frame gives up after one second and
 * then silently leaves the frame out; `PatientAxeBuilder` injects without that race (the page's own
 * budget bounds the visit), so a loaded machine or a heavy frame does not lose a frame's violations.
 */
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import type { Impact } from './score.js';
import { axeRunOptions, axeSource, MAX_NODES_PER_RULE, type AccessibilitySettings } from './rules.js';

/** One rule in one of axe's lists. */
export interface AxeRuleResult {
  id: string;
  impact: Impact | null;
  tags: string[];
  description: string;
  help: string;
  helpUrl: string;
  /** All elements axe reported for the rule in this list; `nodes` holds the first of them. */
  nodeCount: number;
  nodes: Array<{ target: string; html: string; failureSummary: string }>;
  /** axe failed on the rule. */
  error?: string;
}

/** What one axe run found. */
export interface AxeGathered {
  engine: { name: 'axe-core'; version: string };
  violations: AxeRuleResult[];
  /** axe's "incomplete": needs review. */
  incomplete: AxeRuleResult[];
  passes: string[];
  inapplicable: string[];
}

/** axe's result shapes, as far as they are read here. */
type AxeTarget = string | string[];
interface RawNode {
  target: AxeTarget[];
  html: string;
  failureSummary?: string;
}
interface RawRule {
  id: string;
  impact?: string | null;
  tags: string[];
  description: string;
  help: string;
  helpUrl: string;
  nodes: RawNode[];
  nodeCount?: number;
  error?: unknown;
}
interface RawResults {
  testEngine: { name: string; version: string };
  violations: RawRule[];
  incomplete: RawRule[];
  passes: Array<{ id: string }>;
  inapplicable: Array<{ id: string }>;
}

interface FrameLike {
  evaluate(script: string): Promise<unknown>;
}
interface BuilderInternals {
  script(): string;
  axeConfigure(): Promise<string>;
}

/**
 * @axe-core/playwright with its frame injection made patient: the wrapper races each frame's
 * injection against a fixed one-second timer and drops the frame when the timer wins (4.13).
 */
export class PatientAxeBuilder extends AxeBuilder {}
Object.defineProperty(PatientAxeBuilder.prototype, 'inject', {
  value: async function inject(this: BuilderInternals, frames: FrameLike[], shouldThrow?: boolean): Promise<void> {
    for (const frame of frames) {
      try {
        await frame.evaluate(this.script());
        await frame.evaluate(await this.axeConfigure());
      } catch (err) {
        if (shouldThrow) throw err;
      }
    }
  },
});

/**
 * Runs axe in the page's main frame and returns its results with only the first nodes of each
 * violated or undecided rule (plus their count) and only the ids of the other rules. Also puts the
 * page's scroll back where it was (axe scrolls to check colour contrast), as Lighthouse does.
 */
const RUN_IN_PAGE = `async ({ run, max }) => {
  const x = window.scrollX, y = window.scrollY;
  try {
    const r = await window.axe.run(document, run);
    const cut = (rule) => ({
      id: rule.id, impact: rule.impact ?? null, tags: rule.tags, description: rule.description, help: rule.help, helpUrl: rule.helpUrl,
      nodeCount: rule.nodes.length,
      nodes: rule.nodes.slice(0, max).map((n) => ({ target: n.target, html: n.html, failureSummary: n.failureSummary })),
      error: rule.error ? String(rule.error.message ?? rule.error) : undefined,
    });
    return {
      testEngine: r.testEngine, violations: r.violations.map(cut), incomplete: r.incomplete.map(cut),
      passes: r.passes.map((p) => ({ id: p.id })), inapplicable: r.inapplicable.map((p) => ({ id: p.id })),
    };
  } finally {
    window.scrollTo(x, y);
  }
}`;

export async function gatherAccessibility(page: Page, settings: AccessibilitySettings): Promise<AxeGathered> {
  const run = axeRunOptions(settings);
  let raw: RawResults;
  if (page.frames().length === 1) {
    await page.evaluate(axeSource());
    raw = (await page.evaluate(`(${RUN_IN_PAGE})(${JSON.stringify({ run: { ...run, iframes: false }, max: MAX_NODES_PER_RULE })})`)) as RawResults;
  } else {
    raw = (await new PatientAxeBuilder({ page: page as never, axeSource: axeSource() }).options(run).analyze()) as unknown as RawResults;
  }
  return {
    engine: { name: 'axe-core', version: raw.testEngine.version },
    violations: raw.violations.map(ruleResult),
    incomplete: raw.incomplete.map(ruleResult),
    passes: raw.passes.map((p) => p.id),
    inapplicable: raw.inapplicable.map((p) => p.id),
  };
}

function ruleResult(rule: RawRule): AxeRuleResult {
  return {
    id: rule.id,
    impact: (rule.impact ?? null) as Impact | null,
    tags: rule.tags,
    description: rule.description,
    help: rule.help,
    helpUrl: rule.helpUrl,
    nodeCount: rule.nodeCount ?? rule.nodes.length,
    nodes: rule.nodes.slice(0, MAX_NODES_PER_RULE).map((n) => ({ target: targetSelector(n.target), html: n.html, failureSummary: n.failureSummary ?? '' })),
    ...(rule.error !== undefined && rule.error !== null ? { error: errorText(rule.error) } : {}),
  };
}

/** axe's target: one entry per frame level, an entry being a selector or a path through shadow roots. */
export function targetSelector(target: readonly AxeTarget[]): string {
  return target.map((level) => (Array.isArray(level) ? level.join(' >>> ') : level)).join(' >>> ');
}

function errorText(error: unknown): string {
  if (typeof error === 'object' && error && 'message' in error) return String((error as { message: unknown }).message);
  return String(error);
}
