/** Terminal output of a finished scan: summary, gate items sorted by severity, colour on a terminal. */
import stringWidth from 'string-width';
import type { GateItem, GateResult } from './gate.js';
import type { ScanResults } from './follow.js';
import { some } from '../reports/not-tested.js';

/** Colour on when stdout is a terminal (or FORCE_COLOR is set), off with NO_COLOR or --no-color. */
export function colorEnabled(noColorFlag: boolean, env: NodeJS.ProcessEnv = process.env, isTty = Boolean(process.stdout.isTTY)): boolean {
  if (noColorFlag || (env.NO_COLOR !== undefined && env.NO_COLOR !== '')) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== '') return true;
  return isTty;
}

export type Paint = (style: keyof typeof STYLES, text: string) => string;
const STYLES = { red: '31', yellow: '33', blue: '34', cyan: '36', green: '32', gray: '90', bold: '1', magenta: '35' } as const;

export function painter(on: boolean): Paint {
  return on ? (style, text) => `\u001b[${STYLES[style]}m${text}\u001b[0m` : (_style, text) => text;
}

const SEVERITY_STYLE: Record<string, keyof typeof STYLES> = {
  critical: 'magenta',
  high: 'red',
  serious: 'red',
  error: 'red',
  medium: 'yellow',
  moderate: 'yellow',
  low: 'blue',
  minor: 'blue',
  warn: 'yellow',
  info: 'gray',
};

/**
 * Columns padded on their width in the terminal: colour codes count 0, East Asian wide characters and
 * emoji 2, combining marks 0 (string-width; a page path or finding title may hold any of them).
 */
export function table(rows: string[][]): string {
  const visible = (s: string) => stringWidth(s);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => visible(r[i] ?? ''))));
  return rows
    .map((r) =>
      r
        .map((c, i) => c + ' '.repeat(Math.max(0, widths[i]! - visible(c))))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function itemRows(items: GateItem[], paint: Paint, extra?: (i: GateItem) => string): string[][] {
  return items.map((i) => [
    paint(SEVERITY_STYLE[i.severity] ?? 'gray', i.severity.toUpperCase()),
    i.title.slice(0, 90),
    i.where.slice(0, 70),
    i.detail ? i.detail.slice(0, 100) : '',
    i.key.slice(0, 12),
    ...(extra ? [extra(i)] : []),
  ]);
}

export function renderGate(gate: GateResult, paint: Paint, baselineLabel: string | null): string {
  const out: string[] = [];
  const section = (title: string, items: GateItem[], extra?: (i: GateItem) => string) => {
    if (!items.length) return;
    out.push(`\n${paint('bold', `${title} (${items.length}):`)}`);
    out.push(table(itemRows(items, paint, extra)).replace(/^/gm, '  '));
  };
  const expiredFor = new Map(gate.expired.map((e) => [e.item, e.suppression]));
  section('Failing the gate', gate.failing, (i) => {
    const s = expiredFor.get(i);
    return s ? paint('red', `suppression expired on ${s.until} ("${s.reason}", ${s.source})`) : '';
  });
  section('Below the thresholds (not failing)', gate.below);
  if (gate.suppressed.length) {
    out.push(`\n${paint('bold', `Suppressed (${gate.suppressed.length}, not failing):`)}`);
    out.push(
      table(
        gate.suppressed.map(({ item, suppression: s }) => [
          paint('gray', item.severity.toUpperCase()),
          item.title.slice(0, 80),
          item.where.slice(0, 60),
          `"${s.reason}"${s.until ? ` until ${s.until}` : ''}`,
          s.source,
        ]),
      ).replace(/^/gm, '  '),
    );
  }
  section(`Already in the baseline${baselineLabel ? ` ${baselineLabel}` : ''} (not failing)`, gate.known);
  if (gate.budgetViolations.length) {
    out.push(`\n${paint('bold', 'Budgets missed:')}`);
    out.push(
      table([
        ['page', 'metric', 'actual', 'limit', 'level'],
        ...gate.budgetViolations.map((b) => [b.page, b.metric, String(b.actual), b.limit, paint(b.level === 'error' ? 'red' : 'yellow', b.level)]),
      ]).replace(/^/gm, '  '),
    );
  }
  return out.join('\n');
}

/** "1 security at or above high, 2 accessibility at or above serious" */
export function failureSummary(gate: GateResult, failOn: string, failOnA11y: string): string {
  const count = (k: GateItem['kind']) => gate.failing.filter((i) => i.kind === k).length;
  const parts = [
    count('security') ? `${count('security')} security finding(s) at or above ${failOn}` : '',
    count('visual') ? `${count('visual')} visual diff(s) above threshold` : '',
    count('accessibility') ? `${count('accessibility')} accessibility violation(s) at or above ${failOnA11y}` : '',
    count('performance') ? `${count('performance')} budget(s) missed` : '',
    count('page-load') ? `${count('page-load')} page(s) not loaded` : '',
    ...gate.failing.filter((i) => i.kind === 'coverage').map((i) => i.title.replace(/^Coverage /, 'security coverage ')),
  ].filter(Boolean);
  return parts.join(', ');
}

/**
 * What a finished security or full scan did not test (the results' `not_tested`), for the top of the
 * summary, before any finding: the headline, the scan-level causes (target down, identity lost or
 * refused), then the operations never reached and the check runs not tested, by reason code.
 * Empty when everything was tested or the scan has no security section.
 */
export function renderNotTested(notTested: ScanResults['not_tested'], paint: Paint): string {
  if (!notTested || notTested.everything_tested) return '';
  const out = [paint('yellow', `${paint('bold', 'NOT TESTED:')} ${notTested.headline}`)];
  for (const cause of notTested.causes) out.push(`  ${paint('red', cause.kind.replace(/_/g, ' '))}: ${cause.text}`);
  const rows = [
    ...notTested.operations.reasons.map((r) => [`${r.count} operation${r.count === 1 ? '' : 's'}`, r.reason_code, `${r.reason}: ${some(r.endpoints, 3)}`]),
    ...notTested.checks.reasons.map((r) => [
      `${r.count} check run${r.count === 1 ? '' : 's'}`,
      r.reason_code,
      `${r.reason} (${some(
        r.checks.map((c) => c.check),
        4,
      )})`,
    ]),
  ].map(([n, code, text]) => [n!, code!, text!.length > 140 ? `${text!.slice(0, 139)}…` : text!]);
  if (rows.length) out.push(table(rows).replace(/^/gm, '  '));
  return out.join('\n');
}
