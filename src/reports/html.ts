/**
 * HTML export: one self-contained HTML5 page that renders, prints and archives with no network.
 *
 * - Nothing external: inline CSS, inline SVG charts, images only as `data:` URIs (the export route
 *   embeds the scan's screenshots and diff images), one small inline script (the before / after
 *   slider) allowed by its hash, and no external href (the only hrefs are in-page `#` anchors). The
 *   Content-Security-Policy meta (`default-src 'none'`, `img-src data:`, `script-src 'sha256-...'`)
 *   makes the browser refuse anything that slipped through.
 * - Every string that comes from the report is escaped: task names, evidence, errors, accessibility
 *   selectors and HTML snippets carry text from the scanned target, and URLs are caller input.
 * - URLs (target, spec, pages, accessibility help, check references) are shown as text, never as links.
 *   Screenshot URLs that are not `data:` images (signed, expiring links) are never loaded: the report
 *   says the images were not embedded.
 * - Findings are grouped by check with their affected operations, description and remediation; passed
 *   tasks are collapsed.
 */
import { createHash } from 'node:crypto';
import type { BudgetLine } from '../domain/budgets.js';
import type { FunctionalReport, ScanReport, VisualComparison } from '../domain/results.js';
import { SEVERITIES, type AccessibilityNode, type AccessibilityViolation, type PerformancePage, type SecurityCheckInfo, type SecurityOutcome, type Severity, type Task } from '../domain/scan.js';
import { rateMetric, type RatedMetric } from '../domain/metric-ratings.js';

/** The before / after slider: the range input sets where the "after" layer's clip starts. */
const SCRIPT = `for (const range of document.querySelectorAll('input.compare-slider')) {
  const compare = document.getElementById(range.getAttribute('aria-controls'));
  const set = () => compare.style.setProperty('--pos', range.value + '%');
  range.addEventListener('input', set);
  set();
}`;

export const HTML_CSP = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${createHash('sha256').update(SCRIPT).digest('base64')}'`;

/** Images the report shows: data: URIs of raster images only (never a link that would load). */
const EMBEDDABLE = /^data:image\/(png|jpeg|webp|gif);base64,[A-Za-z0-9+/]+=*$/;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escape text for HTML element content and quoted attribute values. C0 control characters other than
 * tab, LF and CR (and DEL) are not allowed in HTML text and become U+FFFD.
 */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c)
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '\uFFFD');
}

/** Tagged template: interpolated values are escaped unless they are `Html` (already rendered). */
class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = Html | string | number | null | undefined | false | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(part);
}

function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] ?? '';
  parts.forEach((part, i) => {
    out += render(part) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

// ---------------------------------------------------------------------------------------------------
// Formatting

const SEVERITY_LABEL: Record<Severity, string> = { critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low', info: 'Info' };
const SEVERITY_RANK: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };
const IMPACT_RANK: Record<AccessibilityViolation['impact'], number> = { critical: 0, serious: 1, moderate: 2, minor: 3 };
const MODE_LABEL: Record<ScanReport['mode'], string> = { security: 'Security', functional: 'Functional', full: 'Full (security and functional)' };

function formatDate(iso: string | null): Html | string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const text = `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  return html`<time datetime="${date.toISOString()}">${text}</time>`;
}

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—';
  if (seconds < 60) return `${Math.round(seconds * 10) / 10} s`;
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h} h ${m} min ${s} s` : `${m} min ${s} s`;
}

function formatNumber(value: number | null, digits = 0): string {
  if (value === null || !Number.isFinite(value)) return '—';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function formatMs(value: number): string {
  return Number.isFinite(value) ? `${formatNumber(value)} ms` : '—';
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatNumber(count)} ${count === 1 ? one : many}`;
}

// ---------------------------------------------------------------------------------------------------
// Styles

const STYLE = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d8dee4; --panel: #f6f8fa; --code: #f3f4f6;
  --pass: #1a7f37; --fail: #cf222e;
  --critical: #a4161a; --high: #d9480f; --medium: #b7791f; --low: #1f6feb; --info: #6e7781; --none: #8c959f;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #30363d; --panel: #161b22; --code: #1c2128;
    --pass: #3fb950; --fail: #f85149;
    --critical: #ff6b6b; --high: #ff922b; --medium: #fcc419; --low: #4dabf7; --info: #adb5bd; --none: #6e7681;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif;
}
main { max-width: 1180px; margin: 0 auto; padding: 32px 24px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 36px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 24px 0 8px; display: flex; align-items: center; gap: 8px; }
p { margin: 6px 0; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
.muted { color: var(--muted); }
.url { overflow-wrap: anywhere; word-break: break-word; }
header.report { display: flex; justify-content: space-between; gap: 16px; flex-wrap: wrap; align-items: flex-start; }
.brand { font-size: 12px; letter-spacing: .08em; text-transform: uppercase; color: var(--muted); font-weight: 600; }
.status { display: inline-block; padding: 3px 10px; border-radius: 999px; font-weight: 600; font-size: 13px; border: 1px solid currentColor; }
.status-completed { color: var(--pass); } .status-failed, .status-cancelled { color: var(--fail); } .status-queued, .status-running { color: var(--muted); }
.banner { margin: 16px 0; padding: 12px 16px; border-radius: 6px; border: 1px solid var(--line); border-left: 4px solid var(--muted); background: var(--panel); }
.banner.bad { border-left-color: var(--fail); } .banner.good { border-left-color: var(--pass); } .banner.warn { border-left-color: var(--medium); }
.banner ul { margin: 4px 0 0; padding-left: 20px; }
ul.endpoints { margin: 4px 0 0; padding-left: 18px; } ul.endpoints li { overflow-wrap: anywhere; }
.badge.invented { background: var(--medium); min-width: 0; margin-left: 6px; }
.check-info dl { margin: 6px 0 0; } .check-info dt { font-weight: 600; margin-top: 6px; } .check-info dd { margin: 2px 0 0; }
.check-entry { border: 1px solid var(--line); border-radius: 8px; padding: 4px 16px 12px; margin: 12px 0; background: var(--panel); }
.check-entry dt { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; margin-top: 10px; }
.check-entry dd { margin: 2px 0 0; }
.reached-yes { color: var(--pass); font-weight: 600; } .reached-no { color: var(--fail); font-weight: 600; } .reached-none { color: var(--muted); }
.banner strong { display: block; margin-bottom: 2px; }
dl.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 10px 24px; margin: 16px 0; }
dl.facts div { min-width: 0; }
dl.facts dt { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
dl.facts dd { margin: 2px 0 0; font-weight: 500; overflow-wrap: anywhere; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); gap: 12px; margin: 16px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; background: var(--panel); }
.card .n { font-size: 26px; font-weight: 700; line-height: 1.1; font-variant-numeric: tabular-nums; }
.card .l { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.card.pass .n { color: var(--pass); } .card.fail .n { color: var(--fail); }
.chart-row { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 24px; align-items: start; }
@media (max-width: 760px) { .chart-row { grid-template-columns: 1fr; } }
figure { margin: 0; }
figcaption { font-size: 12px; color: var(--muted); margin-top: 4px; }
svg text { fill: var(--fg); font: 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
svg .track { fill: var(--panel); stroke: var(--line); }
table { width: 100%; border-collapse: collapse; margin: 8px 0 16px; font-variant-numeric: tabular-nums; }
th, td { text-align: left; vertical-align: top; padding: 7px 10px; border-bottom: 1px solid var(--line); }
th { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); font-weight: 600; background: var(--panel); }
td.num, th.num { text-align: right; white-space: nowrap; }
tr { break-inside: avoid; }
.sev, .badge { display: inline-block; min-width: 64px; text-align: center; padding: 1px 8px; border-radius: 4px; font-size: 12px; font-weight: 600; color: #fff; background: var(--none); }
.sev-critical { background: var(--critical); } .sev-high { background: var(--high); } .sev-medium { background: var(--medium); }
.sev-low { background: var(--low); } .sev-info { background: var(--info); }
@media (prefers-color-scheme: dark) { .sev, .badge { color: #0d1117; } }
.badge.pass { background: var(--pass); } .badge.fail { background: var(--fail); } .badge.warn { background: var(--medium); }
.badge.good { background: var(--pass); } .badge.needs-improvement { background: var(--medium); } .badge.poor { background: var(--fail); }
.badge.impact-critical { background: var(--critical); } .badge.impact-serious { background: var(--high); }
.badge.impact-moderate { background: var(--medium); } .badge.impact-minor { background: var(--low); }
.dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; }
.dot.sev-critical { background: var(--critical); } .dot.sev-high { background: var(--high); } .dot.sev-medium { background: var(--medium); }
.dot.sev-low { background: var(--low); } .dot.sev-info { background: var(--info); } .dot.sev-none { background: var(--none); }
details { margin: 4px 0 0; }
summary { cursor: pointer; color: var(--muted); font-size: 12.5px; }
pre { margin: 6px 0 0; padding: 10px 12px; background: var(--code); border: 1px solid var(--line); border-radius: 6px;
  white-space: pre-wrap; overflow-wrap: anywhere; word-break: break-word; max-height: 480px; overflow: auto; }
.refs { font-size: 12.5px; color: var(--muted); }
ul.a11y-nodes { margin: 6px 0 0; padding-left: 20px; } ul.a11y-nodes li { margin-bottom: 8px; }
.a11y-nodes .fix, td .fix { font-size: 12.5px; white-space: pre-wrap; }
.empty { padding: 14px 16px; border: 1px dashed var(--line); border-radius: 6px; color: var(--muted); }
nav.toc { font-size: 13px; margin: 12px 0; } nav.toc a { color: var(--muted); margin-right: 14px; }
footer { margin-top: 40px; padding-top: 12px; border-top: 1px solid var(--line); font-size: 12px; color: var(--muted); }
.finding-group { border: 1px solid var(--line); border-left: 4px solid var(--none); border-radius: 8px; padding: 4px 16px 12px; margin: 14px 0; }
.finding-group.sev-border-critical { border-left-color: var(--critical); } .finding-group.sev-border-high { border-left-color: var(--high); }
.finding-group.sev-border-medium { border-left-color: var(--medium); } .finding-group.sev-border-low { border-left-color: var(--low); } .finding-group.sev-border-info { border-left-color: var(--info); }
.finding-group dl { margin: 4px 0 8px; } .finding-group dt { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; margin-top: 8px; }
.finding-group dd { margin: 2px 0 0; }
details.passed-tasks { margin: 6px 0 16px; } details.passed-tasks > summary { font-size: 13px; }
.visual-page { border: 1px solid var(--line); border-radius: 8px; padding: 8px 16px 14px; margin: 14px 0; }
.visual-page h3 { margin-top: 8px; }
.compare-frame { max-height: 760px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); }
.compare { position: relative; display: inline-block; vertical-align: top; max-width: 100%; --pos: 50%; }
.compare img { display: block; max-width: 100%; height: auto; }
.compare .after-layer { position: absolute; inset: 0; clip-path: inset(0 0 0 var(--pos)); }
.compare .after-layer img { width: 100%; }
.compare::after { content: ""; position: absolute; top: 0; bottom: 0; left: var(--pos); border-left: 2px solid var(--fail); pointer-events: none; }
.compare-controls { display: flex; align-items: center; gap: 10px; margin: 8px 0; font-size: 12.5px; color: var(--muted); }
input.compare-slider { flex: 1; max-width: 640px; }
img.shot { display: block; max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; }
.shots { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 12px; margin-top: 8px; }
.metric-good { color: var(--pass); } .metric-needs-improvement { color: var(--medium); font-weight: 600; } .metric-poor { color: var(--fail); font-weight: 700; }
.budget-fail { color: var(--fail); font-weight: 600; } .budget-warn { color: var(--medium); font-weight: 600; } .budget-pass { color: var(--pass); }
@media print {
  :root {
    color-scheme: light;
    --bg: #ffffff; --fg: #000000; --muted: #4b5563; --line: #c7cdd4; --panel: #f5f6f8; --code: #f5f6f8;
    --pass: #1a7f37; --fail: #b42318;
    --critical: #a4161a; --high: #c2410c; --medium: #a16207; --low: #1d4ed8; --info: #4b5563; --none: #6b7280;
  }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .sev, .badge { color: #ffffff; }
  body { font-size: 11px; }
  main { max-width: none; padding: 0; }
  nav.toc { display: none; }
  h2 { break-after: avoid; } h3 { break-after: avoid; }
  pre { max-height: none; overflow: visible; }
  details::details-content { content-visibility: visible; display: block; }
  .compare-frame { max-height: none; overflow: visible; } .compare-controls { display: none; }
  summary { color: var(--fg); }
}
@page { margin: 14mm 12mm; }
`;

// ---------------------------------------------------------------------------------------------------
// Summary and chart

function severityChart(report: ScanReport): Html {
  const counts = SEVERITIES.map((severity) => ({ severity, count: report.severity_counts?.[severity] ?? 0 }));
  const max = Math.max(1, ...counts.map((c) => c.count));
  const labelWidth = 76;
  const barMax = 300;
  const rowHeight = 28;
  const width = labelWidth + barMax + 56;
  const height = counts.length * rowHeight + 8;
  const totalFailedBySeverity = counts.reduce((sum, c) => sum + c.count, 0);
  const title = `Failed security tasks by severity: ${counts.map((c) => `${SEVERITY_LABEL[c.severity]} ${c.count}`).join(', ')}`;
  const rows = counts.map((c, i) => {
    const y = 4 + i * rowHeight;
    const w = c.count === 0 ? 0 : Math.max(3, Math.round((c.count / max) * barMax));
    return html`<g data-severity="${c.severity}" data-count="${c.count}">
<text x="0" y="${y + 17}">${SEVERITY_LABEL[c.severity]}</text>
<rect class="track" x="${labelWidth}" y="${y + 3}" width="${barMax}" height="${rowHeight - 10}" rx="3"/>
<rect x="${labelWidth}" y="${y + 3}" width="${w}" height="${rowHeight - 10}" rx="3" style="fill: var(--${c.severity})"/>
<text x="${labelWidth + barMax + 8}" y="${y + 17}" font-weight="600">${c.count}</text>
</g>`;
  });
  return html`<figure>
<svg class="chart severity-chart" role="img" aria-label="${title}" viewBox="0 0 ${width} ${height}" width="100%" style="max-width: ${width}px" preserveAspectRatio="xMinYMin meet">
<title>${title}</title>
${rows}
</svg>
<figcaption>Failed security tasks by severity (${plural(totalFailedBySeverity, 'finding')}).</figcaption>
</figure>`;
}

function passFailChart(report: ScanReport): Html {
  const passed = Math.max(0, report.passed);
  const failed = Math.max(0, report.failed);
  const total = passed + failed;
  const width = 320;
  const barY = 8;
  const barH = 22;
  const passW = total === 0 ? 0 : Math.round((passed / total) * width);
  const pct = (n: number) => (total === 0 ? '0' : formatNumber((n / total) * 100, 1));
  const title = `Tasks: ${passed} passed, ${failed} failed`;
  return html`<figure>
<svg class="chart pass-fail-chart" role="img" aria-label="${title}" viewBox="0 0 ${width} 64" width="100%" style="max-width: ${width}px" preserveAspectRatio="xMinYMin meet">
<title>${title}</title>
<rect class="track" x="0" y="${barY}" width="${width}" height="${barH}" rx="4"/>
${total > 0 ? html`<rect x="0" y="${barY}" width="${passW}" height="${barH}" rx="4" style="fill: var(--pass)" data-passed="${passed}"/>
<rect x="${passW}" y="${barY}" width="${width - passW}" height="${barH}" rx="4" style="fill: var(--fail)" data-failed="${failed}"/>` : ''}
<text x="0" y="${barY + barH + 20}">Passed ${passed} (${pct(passed)}%)</text>
<text x="${width}" y="${barY + barH + 20}" text-anchor="end">Failed ${failed} (${pct(failed)}%)</text>
</svg>
<figcaption>Passed and failed tasks (${plural(total, 'task')}).</figcaption>
</figure>`;
}

function thresholdBanner(report: ScanReport): Html {
  if (report.fail_on === null) {
    return html`<div class="banner threshold" data-threshold="none"><strong>No failure threshold</strong>The scan was started without <code>fail_on</code>.</div>`;
  }
  const label = SEVERITY_LABEL[report.fail_on] ?? report.fail_on;
  return report.threshold_reached
    ? html`<div class="banner bad threshold" data-threshold="reached"><strong>Failure threshold reached</strong>At least one failed task is at or above <span class="sev sev-${report.fail_on}">${label}</span> (<code>fail_on: ${report.fail_on}</code>).</div>`
    : html`<div class="banner good threshold" data-threshold="not-reached"><strong>Failure threshold not reached</strong>No failed task is at or above <span class="sev sev-${report.fail_on}">${label}</span> (<code>fail_on: ${report.fail_on}</code>).</div>`;
}

function summary(report: ScanReport): Html {
  const failure = report.failure_reason
    ? html`<div class="banner bad failure-reason"><strong>${report.status === 'failed' ? 'The scan failed' : 'Reason'}</strong><span class="url">${report.failure_reason}</span></div>`
    : '';
  return html`<section id="summary" aria-labelledby="summary-title">
<h2 id="summary-title">Summary</h2>
${failure}
<dl class="facts">
<div><dt>Target</dt><dd class="url mono">${report.url}</dd></div>
${report.spec_url ? html`<div><dt>Specification</dt><dd class="url mono">${report.spec_url}</dd></div>` : ''}
<div><dt>Mode</dt><dd>${MODE_LABEL[report.mode] ?? report.mode}</dd></div>
<div><dt>Status</dt><dd><span class="status status-${report.status}">${report.status}</span></dd></div>
<div><dt>Started</dt><dd>${formatDate(report.created_at)}</dd></div>
<div><dt>Finished</dt><dd>${formatDate(report.completed_at)}</dd></div>
<div><dt>Duration</dt><dd>${formatDuration(report.elapsed_seconds)}</dd></div>
<div><dt>Agents</dt><dd>${formatNumber(report.agent_count)}</dd></div>
</dl>
<div class="cards">
<div class="card"><div class="n" data-count="total">${formatNumber(report.total)}</div><div class="l">Tasks</div></div>
<div class="card pass"><div class="n" data-count="passed">${formatNumber(report.passed)}</div><div class="l">Passed</div></div>
<div class="card fail"><div class="n" data-count="failed">${formatNumber(report.failed)}</div><div class="l">Failed</div></div>
${SEVERITIES.filter((s) => s === 'critical' || s === 'high').map(
  (s) => html`<div class="card"><div class="n" style="color: var(--${s})">${formatNumber(report.severity_counts?.[s] ?? 0)}</div><div class="l">${SEVERITY_LABEL[s]}</div></div>`,
)}
</div>
${thresholdBanner(report)}
<div class="chart-row">
${severityChart(report)}
${passFailChart(report)}
</div>
<table class="severity-table">
<thead><tr><th>Severity</th><th class="num">Failed tasks</th></tr></thead>
<tbody>
${SEVERITIES.map(
  (s) => html`<tr data-severity="${s}"><td><span class="sev sev-${s}">${SEVERITY_LABEL[s]}</span></td><td class="num" data-count="${report.severity_counts?.[s] ?? 0}">${formatNumber(report.severity_counts?.[s] ?? 0)}</td></tr>`,
)}
</tbody>
</table>
</section>`;
}

// ---------------------------------------------------------------------------------------------------
// Tasks

type Group = { key: Severity | 'none'; label: string; tasks: Task[] };

function groupTasks(tasks: Task[]): Group[] {
  const groups: Group[] = [
    ...SEVERITIES.map((s): Group => ({ key: s, label: SEVERITY_LABEL[s], tasks: [] })),
    { key: 'none', label: 'No severity (functional checks)', tasks: [] },
  ];
  for (const task of tasks) {
    const key = task.severity && task.severity in SEVERITY_RANK ? SEVERITY_RANK[task.severity] : SEVERITIES.length;
    groups[key]!.tasks.push(task);
  }
  for (const group of groups) {
    // Failed first, then the original order (stable sort).
    group.tasks.sort((a, b) => (a.status === b.status ? 0 : a.status === 'failed' ? -1 : 1));
  }
  return groups.filter((g) => g.tasks.length > 0);
}

/** The checks of the report's catalogue by id, each with the in-page anchor of its entry. */
type CheckIndex = Map<string, { info: SecurityCheckInfo; anchor: string }>;

function checkIndex(security: SecurityOutcome | null): CheckIndex {
  const index: CheckIndex = new Map();
  // Anchors are numbered, so a check id with any characters still gives a valid fragment.
  security?.checks.forEach((info, i) => {
    if (!index.has(info.id)) index.set(info.id, { info, anchor: `check-${i + 1}` });
  });
  return index;
}

/** An OWASP or CWE reference: the id, and its URL as text. */
function reference(ref: { id: string; url: string }): Html | '' {
  if (!ref.id && !ref.url) return '';
  return html`<div>${ref.id}${ref.url ? html` <span class="refs url mono">${ref.url}</span>` : ''}</div>`;
}

function referencesList(info: SecurityCheckInfo): Html {
  return html`${reference(info.owasp)}${reference(info.cwe)}${info.references.map((r) => html`<div>${r.title}${r.url ? html` <span class="refs url mono">${r.url}</span>` : ''}</div>`)}`;
}

/** Description, risk, remediation and references of a finding's check, under the finding. */
function checkExplanation(info: SecurityCheckInfo, anchor: string): Html {
  return html`<details class="check-info" data-check="${info.id}"><summary>About this check: risk, remediation, references</summary>
<dl>
${info.description ? html`<dt>What it checks</dt><dd>${info.description}</dd>` : ''}
${info.risk ? html`<dt>Risk</dt><dd>${info.risk}</dd>` : ''}
${info.remediation ? html`<dt>Remediation</dt><dd class="remediation">${info.remediation}</dd>` : ''}
<dt>References</dt><dd>${referencesList(info)}<div><a href="#${anchor}">Check catalogue entry</a></div></dd>
</dl>
</details>`;
}

function endpointsList(endpoints: string[]): Html {
  return html`<div class="refs">${plural(endpoints.length, 'operation')} affected</div><ul class="endpoints">${endpoints.map((e) => html`<li><code>${e}</code></li>`)}</ul>`;
}

const INVENTED_NOTE = 'No real resource was found to test with: the verdict rests on invented values';

function taskRow(task: Task, showDuration: boolean, checks: CheckIndex): Html {
  const known = task.check ? checks.get(task.check) : undefined;
  const checkRef = task.check && (known ? html`<span>check <a href="#${known.anchor}">${known.info.title || task.check}</a> <code>${task.check}</code></span>` : html`<span>check <code>${task.check}</code></span>`);
  const refs = [checkRef, task.owasp && html`<span>${task.owasp}</span>`, task.cwe && html`<span>${task.cwe}</span>`].filter(Boolean) as Html[];
  const parameter = task.parameter ? html`<div class="refs">parameter <code>${task.parameter}</code></div>` : '';
  const target =
    task.endpoints && task.endpoints.length > 0
      ? html`${endpointsList(task.endpoints)}${parameter}`
      : task.endpoint
        ? html`<code class="url">${task.endpoint}</code>${parameter}`
        : task.parameter
          ? parameter
          : html`<span class="muted">—</span>`;
  const blocks = [
    task.invented_values ? html`<div class="refs invented-values">${INVENTED_NOTE}.</div>` : '',
    task.error ? html`<details class="error"${task.status === 'failed' ? ' open' : ''}><summary>Error</summary><pre>${task.error}</pre></details>` : '',
    task.evidence ? html`<details class="evidence"><summary>Evidence</summary><pre>${task.evidence}</pre></details>` : '',
    known && task.status === 'failed' ? checkExplanation(known.info, known.anchor) : '',
  ];
  return html`<tr class="task task-${task.status}" data-task-id="${task.task_id}" data-status="${task.status}"${task.severity ? html` data-severity="${task.severity}"` : ''}>
<td><span class="badge ${task.status === 'passed' ? 'pass' : 'fail'}">${task.status}</span>${task.invented_values ? html`<span class="badge invented" title="${INVENTED_NOTE}">invented values</span>` : ''}</td>
<td><div class="task-name">${task.name}</div><div class="refs mono">${task.task_id}</div>${refs.length ? html`<div class="refs">${refs.map((r, i) => html`${i ? ' · ' : ''}${r}`)}</div>` : ''}${blocks}</td>
<td>${target}</td>
${showDuration ? html`<td class="num">${task.duration_ms !== undefined ? formatMs(task.duration_ms) : '—'}</td>` : ''}
</tr>`;
}

function tasksSection(report: ScanReport, checks: CheckIndex): Html {
  if (report.tasks.length === 0) {
    return html`<section id="tasks" aria-labelledby="tasks-title"><h2 id="tasks-title">Tasks</h2><p class="empty">This scan has no tasks${report.status === 'failed' ? ': it failed before any ran' : ''}.</p></section>`;
  }
  const groups = groupTasks(report.tasks);
  return html`<section id="tasks" aria-labelledby="tasks-title">
<h2 id="tasks-title">Tasks</h2>
<p class="muted">${plural(report.tasks.length, 'task')}, grouped by severity, failed first. Evidence is the request sent and the part of the response that proves the verdict, with secrets masked.</p>
${groups.map((g) => {
  const failed = g.tasks.filter((t) => t.status === 'failed');
  const passed = g.tasks.filter((t) => t.status !== 'failed');
  const showDuration = g.tasks.some((t) => t.duration_ms !== undefined);
  const table = (tasks: Task[]) => html`<table class="tasks">
<thead><tr><th style="width: 84px">Result</th><th>Task</th><th style="width: 28%">Endpoint</th>${showDuration ? html`<th class="num" style="width: 90px">Duration</th>` : ''}</tr></thead>
<tbody>
${tasks.map((t) => taskRow(t, showDuration, checks))}
</tbody>
</table>`;
  return html`<section class="task-group" id="severity-${g.key}" data-group="${g.key}">
<h3><span class="dot sev-${g.key}"></span>${g.label} <span class="muted">${failed.length} failed · ${passed.length} passed</span></h3>
${failed.length ? table(failed) : ''}
${passed.length ? html`<details class="passed-tasks" data-passed="${passed.length}"><summary>${plural(passed.length, 'passed task')}</summary>
${table(passed)}
</details>` : ''}
</section>`;
})}
</section>`;
}

// ---------------------------------------------------------------------------------------------------
// Findings: failed security tasks grouped by check

interface FindingGroup {
  check: string;
  info: SecurityCheckInfo | undefined;
  anchor: string | undefined;
  severity: Severity | undefined;
  tasks: Task[];
  operations: string[];
}

function findingGroups(tasks: Task[], checks: CheckIndex): FindingGroup[] {
  const groups = new Map<string, FindingGroup>();
  for (const task of tasks) {
    if (task.status !== 'failed' || task.kind === 'functional' || (!task.check && !task.severity)) continue;
    const check = task.check || task.name;
    const known = task.check ? checks.get(task.check) : undefined;
    const group = groups.get(check) ?? { check, info: known?.info, anchor: known?.anchor, severity: undefined, tasks: [], operations: [] };
    group.tasks.push(task);
    for (const e of task.endpoints?.length ? task.endpoints : task.endpoint ? [task.endpoint] : []) if (!group.operations.includes(e)) group.operations.push(e);
    if (task.severity && (group.severity === undefined || SEVERITY_RANK[task.severity] < SEVERITY_RANK[group.severity])) group.severity = task.severity;
    groups.set(check, group);
  }
  const rank = (g: FindingGroup) => (g.severity ? SEVERITY_RANK[g.severity] : SEVERITIES.length);
  return [...groups.values()].sort((a, b) => rank(a) - rank(b) || b.tasks.length - a.tasks.length);
}

function findingRow(task: Task): Html {
  const endpoints = task.endpoints?.length ? task.endpoints : task.endpoint ? [task.endpoint] : [];
  return html`<tr class="finding" data-task-ref="${task.task_id}"${task.severity ? html` data-severity="${task.severity}"` : ''}>
<td>${endpoints.length > 1 ? endpointsList(endpoints) : endpoints.length ? html`<code class="url">${endpoints[0]}</code>` : html`<span class="muted">the whole target</span>`}</td>
<td>${task.parameter ? html`<code>${task.parameter}</code>` : html`<span class="muted">—</span>`}</td>
<td>${task.severity ? html`<span class="sev sev-${task.severity}">${SEVERITY_LABEL[task.severity]}</span>` : '—'}</td>
<td><div class="task-name">${task.name}</div>${task.invented_values ? html`<div class="refs invented-values">${INVENTED_NOTE}.</div>` : ''}${
    task.evidence ? html`<details class="finding-evidence"><summary>Evidence</summary><pre>${task.evidence}</pre></details>` : ''
  }${task.error ? html`<pre>${task.error}</pre>` : ''}</td>
</tr>`;
}

function findingsSection(report: ScanReport, checks: CheckIndex): Html | '' {
  const groups = findingGroups(report.tasks, checks);
  if (groups.length === 0 && !report.tasks.some((t) => t.kind === 'security' || t.check)) return '';
  return html`<section id="findings" aria-labelledby="findings-title">
<h2 id="findings-title">Findings</h2>
${groups.length === 0 ? html`<p class="empty">No security finding.</p>` : html`<p class="muted">${plural(groups.reduce((n, g) => n + g.tasks.length, 0), 'finding')} in ${plural(groups.length, 'check')}, worst first: what each check found, on which operations, and how to fix it.</p>`}
${groups.map((g) => {
  const title = g.info?.title || g.check;
  return html`<section class="finding-group${g.severity ? ` sev-border-${g.severity}` : ''}" data-check="${g.check}"${g.severity ? html` data-severity="${g.severity}"` : ''} data-findings="${g.tasks.length}" data-operations="${g.operations.length}">
<h3>${g.severity ? html`<span class="sev sev-${g.severity}">${SEVERITY_LABEL[g.severity]}</span>` : ''} ${title}${title !== g.check ? html` <code class="muted">${g.check}</code>` : ''} <span class="muted">${plural(g.tasks.length, 'finding')} · ${plural(g.operations.length, 'operation')} affected</span></h3>
${g.info ? html`<dl>
${g.info.description ? html`<dt>What it checks</dt><dd class="description">${g.info.description}</dd>` : ''}
${g.info.risk ? html`<dt>Risk</dt><dd>${g.info.risk}</dd>` : ''}
${g.info.remediation ? html`<dt>Remediation</dt><dd class="remediation">${g.info.remediation}</dd>` : ''}
<dt>References</dt><dd>${referencesList(g.info)}${g.anchor ? html`<div><a href="#${g.anchor}">Check catalogue entry</a></div>` : ''}</dd>
</dl>` : ''}
<table class="affected">
<thead><tr><th style="width: 30%">Operation</th><th>Parameter</th><th>Severity</th><th>Finding and evidence</th></tr></thead>
<tbody>
${g.tasks.map(findingRow)}
</tbody>
</table>
</section>`;
})}
</section>`;
}

// ---------------------------------------------------------------------------------------------------
// Security: warnings, coverage, checks

function warningsBanner(security: SecurityOutcome | null): Html | '' {
  if (!security || security.warnings.length === 0) return '';
  return html`<div class="banner warn security-warnings" role="alert" data-warnings="${security.warnings.length}"><strong>${security.warnings.length === 1 ? 'Warning' : 'Warnings'}: read the results with this in mind</strong><ul>${security.warnings.map((w) => html`<li>${w}</li>`)}</ul></div>`;
}

function reachedCell(value: boolean | null): Html {
  if (value === null) return html`<td class="reached-none" data-reached="none" title="identity not configured">—</td>`;
  return value ? html`<td class="reached-yes" data-reached="yes">yes</td>` : html`<td class="reached-no" data-reached="no">no</td>`;
}

function coverageSection(security: SecurityOutcome, checks: CheckIndex): Html {
  const { coverage } = security;
  const notes = (o: SecurityOutcome['coverage']['operations'][number]) =>
    [o.skipped ? html`<div class="skipped">skipped: ${o.skipped}</div>` : '', o.invented_values ? html`<div class="invented-values">invented values only</div>` : ''];
  return html`<section id="coverage" aria-labelledby="coverage-title">
<h2 id="coverage-title">Coverage</h2>
<p class="muted">Passed means tested: what each operation answered, with which identity a 2xx was reached, and where each check ran and, where it did not, why.</p>
<div class="cards">
<div class="card${coverage.operations_total > 0 && coverage.operations_2xx === 0 ? ' fail' : ''}"><div class="n" data-count="operations-2xx">${formatNumber(coverage.operations_2xx)} / ${formatNumber(coverage.operations_total)}</div><div class="l">Operations answered 2xx</div></div>
<div class="card"><div class="n" data-count="resources-created">${formatNumber(coverage.resources_created)}</div><div class="l">Resources created</div></div>
<div class="card"><div class="n" data-count="resources-deleted">${formatNumber(coverage.resources_deleted)}</div><div class="l">Resources deleted</div></div>
</div>
<h3>Operations</h3>
${coverage.operations.length === 0 ? html`<p class="empty">No operation was recorded.</p>` : html`<table class="coverage-operations">
<thead><tr><th>Operation</th><th>Statuses reached</th><th>2xx first identity</th><th>2xx second identity</th><th>2xx anonymous</th><th class="num">Requests</th><th>Notes</th></tr></thead>
<tbody>
${coverage.operations.map(
  (o) => html`<tr data-endpoint="${o.endpoint}"${o.skipped ? html` data-skipped="${o.skipped}"` : ''}><td><code class="url">${o.endpoint}</code></td>
<td class="mono">${o.statuses.length ? o.statuses.map((code) => (code === 0 ? 'no response' : String(code))).join(', ') : '—'}</td>
${reachedCell(o.reached_2xx.primary)}${reachedCell(o.reached_2xx.secondary)}${reachedCell(o.reached_2xx.anonymous)}
<td class="num">${formatNumber(o.requests)}</td><td>${notes(o)}</td></tr>`,
)}
</tbody>
</table>`}
<h3>Checks</h3>
${coverage.checks.length === 0 ? html`<p class="empty">No check was recorded.</p>` : html`<table class="coverage-checks">
<thead><tr><th>Check</th><th class="num">Ran on</th><th>Not run</th></tr></thead>
<tbody>
${coverage.checks.map((c) => {
  const known = checks.get(c.check);
  const title = c.title || known?.info.title || c.check;
  return html`<tr data-check="${c.check}" data-ran="${c.ran}"><td>${known ? html`<a href="#${known.anchor}">${title}</a>` : title} <code>${c.check}</code></td>
<td class="num">${plural(c.ran, 'operation')}</td>
<td>${c.not_run.length === 0 ? html`<span class="muted">—</span>` : c.not_run.map(
    (n) => html`<div class="not-run" data-reason="${n.reason}">${n.reason}: ${plural(n.count, 'operation')}${n.endpoints.length ? html`<details><summary>which</summary><ul class="endpoints">${n.endpoints.map((e) => html`<li><code>${e}</code></li>`)}</ul></details>` : ''}</div>`,
  )}</td></tr>`;
})}
</tbody>
</table>`}
</section>`;
}

function checksSection(security: SecurityOutcome, checks: CheckIndex): Html {
  const entries = [...checks.values()];
  return html`<section id="checks" aria-labelledby="checks-title">
<h2 id="checks-title">Checks</h2>
${entries.length === 0 ? html`<p class="empty">The scan reported no check catalogue.</p>` : html`<p class="muted">${plural(entries.length, 'check')}: what each one does, the risk when it fails, how to fix it, and references. Links are shown as text.</p>
${entries.map(
  ({ info, anchor }) => html`<section class="check-entry" id="${anchor}" data-check="${info.id}">
<h3>${info.title || info.id} <code class="muted">${info.id}</code></h3>
<dl>
${info.description ? html`<dt>What it checks</dt><dd>${info.description}</dd>` : ''}
${info.risk ? html`<dt>Risk</dt><dd>${info.risk}</dd>` : ''}
${info.remediation ? html`<dt>Remediation</dt><dd class="remediation">${info.remediation}</dd>` : ''}
<dt>References</dt><dd>${referencesList(info)}</dd>
</dl>
</section>`,
)}`}
${security.checks.length > entries.length ? html`<p class="muted">${plural(security.checks.length - entries.length, 'duplicate entry', 'duplicate entries')} left out.</p>` : ''}
</section>`;
}

// ---------------------------------------------------------------------------------------------------
// Functional sections

/** The largest changed regions as boxes in page pixels, and an unstable page's hint. */
function visualRegions(p: FunctionalReport['visual_regression']['pages'][number]): Html {
  const shown = p.regions.slice(0, 3);
  return html`${shown.length === 0 ? html`<span class="muted">none</span>` : shown.map((r) => html`<div class="mono" data-region>${String(r.width)}x${String(r.height)} at ${String(r.x)},${String(r.y)}: ${formatNumber(r.changed_pixels)} px</div>`)}${
    p.regions.length > shown.length ? html`<div class="muted">and ${formatNumber(p.regions.length - shown.length)} more</div>` : ''
  }${p.hint ? html`<div class="muted" data-hint>${p.hint}</div>` : ''}`;
}

const embedded = (url: string | null | undefined): url is string => typeof url === 'string' && EMBEDDABLE.test(url);

/** Before / after of one page: the two screenshots stacked, a range input moving the edge between them, and the diff image. */
function visualImages(p: VisualComparison, index: number): Html {
  const before = embedded(p.screenshot_before) ? p.screenshot_before : null;
  const after = embedded(p.screenshot_after) ? p.screenshot_after : null;
  const diff = embedded(p.diff_image) ? p.diff_image : null;
  if (!before && !after) return html`<p class="muted" data-images="none">Screenshots not embedded in this report: fetch them through the scan's visual-regression endpoint.</p>`;
  const id = `compare-${index + 1}`;
  const slider =
    before && after && !p.baseline_created
      ? html`<div class="compare-frame"><div class="compare" id="${id}" data-compare>
<img class="before" src="${before}" alt="${`Baseline (before) of ${p.page_url}`}">
<div class="after-layer"><img class="after" src="${after}" alt="${`This scan (after) of ${p.page_url}`}"></div>
</div></div>
<div class="compare-controls"><span>before</span><input type="range" class="compare-slider" min="0" max="100" step="1" value="50" aria-controls="${id}" aria-label="${`Move the edge between before (left) and after (right) for ${p.page_url}`}"><span>after</span></div>`
      : html`<div class="shots"><figure><img class="shot ${after ? 'after' : 'before'}" src="${after ?? before}" alt="${`${p.baseline_created ? 'Baseline set by this scan' : 'Screenshot'} of ${p.page_url}`}"><figcaption>${p.baseline_created ? 'Baseline set by this scan' : after ? 'This scan' : 'Baseline'}</figcaption></figure></div>`;
  const diffBlock = diff
    ? html`<details class="diff-image" open><summary>Diff image: changed pixels highlighted</summary><img class="shot diff" src="${diff}" alt="${`Changed pixels on ${p.page_url}`}"></details>`
    : p.diff_detected
      ? html`<p class="muted">Diff image not embedded.</p>`
      : '';
  return html`${slider}${diffBlock}`;
}

function visualPage(p: VisualComparison, index: number): Html {
  const head = html`<h3><span class="badge ${p.diff_detected ? 'fail' : 'pass'}">${p.diff_detected ? 'diff detected' : 'no diff'}</span>${p.unstable ? html` <span class="badge warn">unstable</span>` : ''} <span class="url mono">${p.page_url}</span></h3>
<p class="muted">${p.viewport} · ${formatNumber(p.diff_percent, 2)}% of pixels differ${p.baseline_created ? ' · baseline created by this scan' : ''}${p.baseline_branch ? html` · baseline branch <code>${p.baseline_branch}</code>` : ''}</p>`;
  return p.diff_detected
    ? html`<section class="visual-page" data-page-diff="true">${head}${visualImages(p, index)}</section>`
    : html`<details class="visual-page" data-page-diff="false"><summary>${p.page_url}: no diff (${formatNumber(p.diff_percent, 2)}%)</summary>${head}${visualImages(p, index)}</details>`;
}

function visualSection(visual: FunctionalReport['visual_regression']): Html {
  const anyEmbedded = visual.pages.some((p) => embedded(p.screenshot_before) || embedded(p.screenshot_after));
  return html`<section id="visual-regression" aria-labelledby="visual-title">
<h2 id="visual-title">Visual regression</h2>
<div class="cards">
<div class="card"><div class="n">${formatNumber(visual.comparisons)}</div><div class="l">Comparisons</div></div>
<div class="card ${visual.diffs_detected > 0 ? 'fail' : 'pass'}"><div class="n" data-count="diffs">${formatNumber(visual.diffs_detected)}</div><div class="l">Diffs detected</div></div>
<div class="card"><div class="n">${formatNumber(visual.diff_threshold_percent, 2)}%</div><div class="l">Diff threshold</div></div>
</div>
${visual.pages.length === 0 ? html`<p class="empty">No pages were compared.</p>` : html`<table class="visual">
<thead><tr><th>Page</th><th>Viewport</th><th class="num">Difference</th><th>Result</th><th>Changed regions</th><th>Baseline</th></tr></thead>
<tbody>
${visual.pages.map(
  (p) => html`<tr data-diff="${String(p.diff_detected)}"><td class="url mono">${p.page_url}</td><td class="mono">${p.viewport}</td><td class="num">${formatNumber(p.diff_percent, 2)}%</td>
<td><span class="badge ${p.diff_detected ? 'fail' : 'pass'}">${p.diff_detected ? 'diff detected' : 'no diff'}</span>${p.unstable ? html` <span class="badge warn" data-unstable="true">unstable</span>` : ''}</td>
<td>${visualRegions(p)}</td>
<td>${p.baseline_created ? 'created by this scan' : 'compared'}</td></tr>`,
)}
</tbody>
</table>
${visual.pages.map((p, i) => visualPage(p, i))}`}
${anyEmbedded ? html`<p class="muted">Screenshots are embedded in this file. Drag the slider to move the edge between the baseline (left) and this scan (right).</p>` : html`<p class="muted">Screenshots and diff images are not embedded in this report: fetch them through the scan's visual-regression endpoint (its links are signed and expire).</p>`}
</section>`;
}

/** The elements of one axe rule: selector, HTML and what to fix, then how many more there are. */
function accessibilityNodes(nodes: readonly AccessibilityNode[] | undefined, total: number, open: boolean): Html | string {
  if (!nodes?.length) return '';
  const more = total - nodes.length;
  return html`<details class="a11y-nodes"${open ? ' open' : ''}><summary>${plural(total, 'element')}</summary><ul class="a11y-nodes">
${nodes.map((n) => html`<li><code class="target">${n.target}</code><pre class="snippet">${n.html}</pre>${n.failure_summary ? html`<div class="fix">${n.failure_summary}</div>` : ''}</li>`)}
</ul>${more > 0 ? html`<p class="muted">and ${plural(more, 'more element')} not listed</p>` : ''}</details>`;
}

function accessibilitySection(a11y: FunctionalReport['accessibility']): Html {
  const violations = [...a11y.violations].sort((x, y) => (IMPACT_RANK[x.impact] ?? 9) - (IMPACT_RANK[y.impact] ?? 9));
  const review = [...(a11y.needs_review ?? [])].sort((x, y) => (IMPACT_RANK[x.impact ?? 'minor'] ?? 9) - (IMPACT_RANK[y.impact ?? 'minor'] ?? 9));
  return html`<section id="accessibility" aria-labelledby="a11y-title">
<h2 id="a11y-title">Accessibility</h2>
<div class="cards">
<div class="card"><div class="n" data-score="accessibility">${formatNumber(a11y.compliance_score, 1)}</div><div class="l">Compliance score</div></div>
<div class="card"><div class="n">${a11y.wcag_level}</div><div class="l">Profile</div></div>
<div class="card"><div class="n">${formatNumber(a11y.pages_scanned)}</div><div class="l">Pages scanned</div></div>
<div class="card ${a11y.total_violations > 0 ? 'fail' : 'pass'}"><div class="n">${formatNumber(a11y.total_violations)}</div><div class="l">Violations</div></div>
<div class="card"><div class="n" data-count="needs-review">${formatNumber(a11y.total_needs_review ?? 0)}</div><div class="l">Needs review</div></div>
</div>
${a11y.engine ? html`<p class="muted" data-engine="axe-core">Audited with ${a11y.engine.name} ${a11y.engine.version}; the compliance score is Lighthouse's accessibility score over the rules it ran.</p>` : ''}
${violations.length === 0 ? html`<p class="empty">No violations found.</p>` : html`<table class="violations">
<thead><tr><th>Rule</th><th>Impact</th><th>WCAG</th><th>Page</th><th class="num">Elements</th><th>Description, help and elements</th></tr></thead>
<tbody>
${violations.map(
  (v) => html`<tr data-impact="${v.impact}"><td class="mono">${v.rule}</td><td><span class="badge impact-${v.impact}">${v.impact}</span></td><td>${v.wcag}</td>
<td class="url mono">${v.page_url}</td><td class="num">${formatNumber(v.elements_affected)}</td>
<td>${v.description}<div class="refs url mono">${v.help_url}</div>${accessibilityNodes(v.nodes, v.elements_affected, true)}</td></tr>`,
)}
</tbody>
</table>`}
${review.length > 0 ? html`<h3 id="a11y-review">Needs review</h3>
<p class="muted">axe-core could not decide on these elements (for instance text over a background image): a person has to check them. They do not lower the score.</p>
<table class="needs-review">
<thead><tr><th>Rule</th><th>Impact</th><th>WCAG</th><th>Page</th><th class="num">Elements</th><th>Description, help and elements</th></tr></thead>
<tbody>
${review.map(
  (r) => html`<tr data-review="${r.rule}"><td class="mono">${r.rule}</td><td>${r.impact ? html`<span class="badge impact-${r.impact}">${r.impact}</span>` : '—'}</td><td>${r.wcag}</td>
<td class="url mono">${r.page_url}</td><td class="num">${formatNumber(r.elements_affected)}</td>
<td>${r.description}<div class="refs url mono">${r.help_url}</div>${r.error ? html`<div class="fix">axe-core failed on this rule: ${r.error}</div>` : ''}${accessibilityNodes(r.nodes, r.elements_affected, false)}</td></tr>`,
)}
</tbody>
</table>` : ''}
${a11y.pages.length > 0 ? html`<h3>Per page</h3>
<table class="a11y-pages">
<thead><tr><th>Page</th><th class="num">Violations</th><th class="num">Needs review</th><th class="num">Score</th></tr></thead>
<tbody>
${a11y.pages.map((p) => html`<tr><td class="url mono">${p.page_url}</td><td class="num">${formatNumber(p.violations)}</td><td class="num">${p.needs_review === undefined ? '—' : formatNumber(p.needs_review)}</td><td class="num">${formatNumber(p.compliance_score, 1)}</td></tr>`)}
</tbody>
</table>` : ''}
</section>`;
}

const RATING_LABEL: Record<PerformancePage['rating'], string> = { good: 'good', 'needs-improvement': 'needs improvement', poor: 'poor' };

const METRICS: { key: RatedMetric; label: string; format: (v: number) => string }[] = [
  { key: 'lcp_ms', label: 'LCP', format: formatMs },
  { key: 'fid_ms', label: 'FID', format: formatMs },
  { key: 'cls', label: 'CLS', format: (v) => formatNumber(v, 3) },
  { key: 'ttfb_ms', label: 'TTFB', format: formatMs },
  { key: 'fcp_ms', label: 'FCP', format: formatMs },
  { key: 'tbt_ms', label: 'TBT', format: formatMs },
  { key: 'si_ms', label: 'SI', format: formatMs },
  { key: 'tti_ms', label: 'TTI', format: formatMs },
];

/** A metric's value with its own rating (good, needs improvement, poor) by the contract's thresholds. */
function metricCell(p: PerformancePage, m: (typeof METRICS)[number]): Html {
  const value = p[m.key];
  if (typeof value !== 'number' || !Number.isFinite(value)) return html`<td class="num">—</td>`;
  const rating = rateMetric(m.key, value);
  return html`<td class="num metric-${rating}" data-metric="${m.key}" data-rating="${rating}" title="${`${m.label}: ${RATING_LABEL[rating]}`}">${m.format(value)}</td>`;
}

/** Budgets as the results carry them (per page, per metric or score): what was allowed, what was measured, the verdict. */
const budgetsOf = (p: PerformancePage): BudgetLine[] => p.budgets ?? [];

function budgetsCell(p: PerformancePage): Html {
  const budgets = budgetsOf(p);
  if (budgets.length === 0) return html`<td class="muted">—</td>`;
  return html`<td class="budgets">${budgets.map((b) => {
    const cls = b.passed ? 'budget-pass' : b.level === 'warn' ? 'budget-warn' : 'budget-fail';
    const missed = b.kind === 'max' ? 'over' : 'under';
    const verdict = b.passed ? 'within' : b.level === 'warn' ? `${missed} (warning)` : missed;
    return html`<div class="${cls}" data-budget="${b.metric}" data-budget-passed="${String(b.passed)}">${b.metric}: ${formatNumber(b.actual, b.actual % 1 ? 3 : 0)} / ${b.kind === 'max' ? '≤' : '≥'} ${formatNumber(b.limit, b.limit % 1 ? 3 : 0)} ${verdict}</div>`;
  })}</td>`;
}

function performanceSection(perf: FunctionalReport['performance']): Html {
  const withBudgets = perf.pages.some((p) => budgetsOf(p).length > 0);
  return html`<section id="performance" aria-labelledby="perf-title">
<h2 id="perf-title">Performance</h2>
<div class="cards">
<div class="card"><div class="n" data-score="performance">${formatNumber(perf.performance_score)}</div><div class="l">Performance score</div></div>
<div class="card"><div class="n">${formatNumber(perf.pages_tested)}</div><div class="l">Pages tested</div></div>
</div>
${perf.pages.length === 0 ? html`<p class="empty">No pages were measured.</p>` : html`<table class="performance">
<thead><tr><th>Page</th><th class="num">Score</th><th>Rating</th>${METRICS.map((m) => html`<th class="num">${m.label}</th>`)}${withBudgets ? html`<th>Budgets</th>` : ''}</tr></thead>
<tbody>
${perf.pages.map(
  (p) => html`<tr data-rating="${p.rating}"><td class="url mono">${p.page_url}${p.throttling ? html`<div class="refs">throttling: ${p.throttling}</div>` : ''}</td><td class="num">${formatNumber(p.performance_score)}</td>
<td><span class="badge ${p.rating}">${RATING_LABEL[p.rating] ?? p.rating}</span></td>
${METRICS.map((m) => metricCell(p, m))}${withBudgets ? budgetsCell(p) : ''}</tr>`,
)}
</tbody>
</table>
<p class="muted">Each metric is coloured by its own rating (good, needs improvement, poor); the page's rating is the worst of its Core Web Vitals (LCP, CLS, FID). LCP largest contentful paint, FID first input delay, CLS cumulative layout shift, TTFB time to first byte, FCP first contentful paint, TBT total blocking time, SI speed index, TTI time to interactive.${withBudgets ? '' : ' No performance budgets were set for this scan.'}</p>`}
</section>`;
}

// ---------------------------------------------------------------------------------------------------

export function renderHtmlReport(report: ScanReport): string {
  const functional = report.functional;
  const security = report.security;
  const checks = checkIndex(security);
  const findings = findingsSection(report, checks);
  const sliders = functional?.visual_regression.pages.some((p) => !p.baseline_created && embedded(p.screenshot_before) && embedded(p.screenshot_after)) ?? false;
  const nav = [
    html`<a href="#summary">Summary</a>`,
    findings ? html`<a href="#findings">Findings</a>` : '',
    html`<a href="#tasks">Tasks</a>`,
    security ? html`<a href="#coverage">Coverage</a><a href="#checks">Checks</a>` : '',
    functional ? html`<a href="#visual-regression">Visual regression</a><a href="#accessibility">Accessibility</a><a href="#performance">Performance</a>` : '',
  ];
  const page = html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${HTML_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<meta name="generator" content="Vigil">
<title>Vigil scan report ${report.scan_id}</title>
<style>${new Html(STYLE)}</style>
</head>
<body>
<main>
<header class="report">
<div>
<div class="brand">Vigil scan report</div>
<h1 class="url">${report.url}</h1>
<p class="muted">Scan <code>${report.scan_id}</code> · ${MODE_LABEL[report.mode] ?? report.mode} · ${formatDate(report.created_at)}</p>
</div>
<span class="status status-${report.status}">${report.status}</span>
</header>
${warningsBanner(security)}
<nav class="toc">${nav}</nav>
${summary(report)}
${findings}
${tasksSection(report, checks)}
${security ? [coverageSection(security, checks), checksSection(security, checks)] : ''}
${functional ? [visualSection(functional.visual_regression), accessibilitySection(functional.accessibility), performanceSection(functional.performance)] : ''}
<footer>Scan <span class="mono">${report.scan_id}</span> · tenant <span class="mono">${report.tenant_id}</span>. Generated by Vigil from the scan's stored results. Text from the scanned target is shown as inert text.</footer>
</main>
${sliders ? html`<script>${new Html(SCRIPT)}</script>` : ''}
</body>
</html>
`;
  return page.value;
}
