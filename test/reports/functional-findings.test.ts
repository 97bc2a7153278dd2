/**
 * A functional task stands for its page's findings (reports/functional-findings.ts): the report model marks
 * it suppressed only when every one of them is, with their reasons joined and the earliest expiry.
 */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/domain/scan.js';
import { functionalFingerprint, type StoredSuppression } from '../../src/domain/suppressions.js';
import { taskFindingKeys } from '../../src/reports/functional-findings.js';
import { triagedTasks } from '../../src/reports/model.js';
import { OTHER_PAGE, OUTCOME, PAGE, TASKS } from '../helpers/functional-findings.js';

const now = new Date('2026-11-27T00:00:00Z');
const findings = { visual: OUTCOME.visual, violations: OUTCOME.accessibility.violations, performance: OUTCOME.performance.pages };
const task = (id: string) => TASKS.find((t) => t.task_id === id)!;
const suppression = (fingerprint: string, reason: string, expires_at: string | null = null): StoredSuppression => ({
  id: `sup_${reason}`,
  tenant_id: 't',
  fingerprint,
  target: null,
  reason,
  author: 'ana@shop.test',
  created_at: '2026-11-01T00:00:00Z',
  expires_at,
});

describe('the page findings a functional task stands for', () => {
  it('a visual task is its page diff, an accessibility task its page violations and accessibility budget, a performance task over budget its other missed budgets', () => {
    const a11yBudget = functionalFingerprint('budget/accessibility', PAGE);
    expect(taskFindingKeys(task('visual'), findings)).toEqual([functionalFingerprint('visual', PAGE)]);
    expect(taskFindingKeys(task('a11y'), findings)).toEqual([functionalFingerprint('a11y/color-contrast', PAGE), a11yBudget]);
    expect(taskFindingKeys(task('a11y-home'), findings)).toEqual([functionalFingerprint('a11y/image-alt', OTHER_PAGE)]);
    expect(taskFindingKeys(task('perf'), findings)).toEqual([functionalFingerprint('budget/lcp', PAGE)]);
    // Without the violations listed (plans without detailed reports): the gate's page item of unknown rule, and the budget
    expect(taskFindingKeys(task('a11y'), { ...findings, violations: null })).toEqual([functionalFingerprint('a11y/unknown', '/checkout'), a11yBudget]);
    // A task that failed only over its accessibility budget stands for the budget alone
    const onlyBudget: Task = { ...task('a11y'), error: 'over budget: accessibility 80 (limit >= 90)' };
    expect(taskFindingKeys(onlyBudget, { ...findings, violations: [] })).toEqual([a11yBudget]);
    expect(taskFindingKeys(onlyBudget, { ...findings, violations: null })).toEqual([a11yBudget]);
  });

  it('a failure that is not only such findings stands for none: a page rated poor, a passed task', () => {
    const poor: Task = { ...task('perf'), error: 'rated poor: LCP 4600 ms (poor above 4000 ms); over budget: lcp 3200 (limit <= 2500)' };
    expect(taskFindingKeys(poor, findings)).toBeUndefined();
    expect(taskFindingKeys({ ...task('visual'), status: 'passed' }, findings)).toBeUndefined();
  });

  it('the model marks a task suppressed only when every finding of its page is, reasons joined and the earliest expiry', () => {
    const second = { ...OUTCOME.accessibility.violations[0]!, rule: 'label' };
    const outcome = { ...OUTCOME, accessibility: { ...OUTCOME.accessibility, violations: [...OUTCOME.accessibility.violations, second] } };
    const contrast = suppression(functionalFingerprint('a11y/color-contrast', PAGE), 'Brand colours', '2026-12-31T00:00:00.000Z');
    const label = suppression(functionalFingerprint('a11y/label', PAGE), 'Legacy form', '2026-12-15T00:00:00.000Z');
    const budget = suppression(functionalFingerprint('budget/accessibility', PAGE), 'Score waived');
    const a11y = (suppressions: StoredSuppression[]) =>
      triagedTasks(TASKS, 'https://shop.test', { suppressions, now }, outcome).find((t) => t.task_id === 'a11y')!;

    expect(a11y([contrast]).suppressed).toBeUndefined();
    // The page's missed accessibility budget is one of the task's findings too
    expect(a11y([contrast, label]).suppressed).toBeUndefined();
    expect(a11y([contrast, label, budget]).suppressed).toEqual({
      reason: 'Brand colours; Legacy form; Score waived',
      author: 'ana@shop.test',
      expires_at: '2026-12-15T00:00:00.000Z',
      source: 'server',
    });
    // The other page's task is untouched
    expect(
      triagedTasks(TASKS, 'https://shop.test', { suppressions: [contrast, label, budget], now }, outcome).find((t) => t.task_id === 'a11y-home')!.suppressed,
    ).toBeUndefined();
  });
});
