/** The report's summary: target, status, counts, the severity and pass / fail charts, the threshold banner. */
import type { ScanReport } from '../../domain/results.js';
import { SEVERITIES } from '../../domain/scan.js';
import { commitUrl, pullRequestUrl } from '../../domain/ci.js';
import { Html, html, SEVERITY_LABEL, MODE_LABEL, formatDate, formatDuration, formatNumber, plural } from './markup.js';

// ---------------------------------------------------------------------------------------------------
// Summary and chart

export function severityChart(report: ScanReport): Html {
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

export function passFailChart(report: ScanReport): Html {
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
${
  total > 0
    ? html`<rect x="0" y="${barY}" width="${passW}" height="${barH}" rx="4" style="fill: var(--pass)" data-passed="${passed}"/>
<rect x="${passW}" y="${barY}" width="${width - passW}" height="${barH}" rx="4" style="fill: var(--fail)" data-failed="${failed}"/>`
    : ''
}
<text x="0" y="${barY + barH + 20}">Passed ${passed} (${pct(passed)}%)</text>
<text x="${width}" y="${barY + barH + 20}" text-anchor="end">Failed ${failed} (${pct(failed)}%)</text>
</svg>
<figcaption>Passed and failed tasks (${plural(total, 'task')}).</figcaption>
</figure>`;
}

export function thresholdBanner(report: ScanReport): Html {
  if (report.fail_on === null) {
    return html`<div class="banner threshold" data-threshold="none"><strong>No failure threshold</strong>The scan was started without <code>fail_on</code>.</div>`;
  }
  const label = SEVERITY_LABEL[report.fail_on] ?? report.fail_on;
  return report.threshold_reached
    ? html`<div class="banner bad threshold" data-threshold="reached"><strong>Failure threshold reached</strong>At least one failed task is at or above <span class="sev sev-${report.fail_on}">${label}</span> (<code>fail_on: ${report.fail_on}</code>).</div>`
    : html`<div class="banner good threshold" data-threshold="not-reached"><strong>Failure threshold not reached</strong>No failed task is at or above <span class="sev sev-${report.fail_on}">${label}</span> (<code>fail_on: ${report.fail_on}</code>).</div>`;
}

/**
 * What a CI run scanned (repository, branch, commit, pull request, run), as facts of the summary; nothing
 * without CI metadata. Addresses are text, not links: the report links only inside itself.
 */
export function ciFacts(report: ScanReport): Html | '' {
  const ci = report.ci;
  if (!ci) return '';
  const address = (url: string | undefined) => (url ? html` <span class="url mono muted">${url}</span>` : '');
  return html`${ci.repository || ci.repository_url ? html`<div data-ci="repository"><dt>Repository</dt><dd>${ci.repository ?? ''}${address(ci.repository_url)}</dd></div>` : ''}
${ci.branch ? html`<div data-ci="branch"><dt>Branch</dt><dd class="mono">${ci.branch}${ci.base_branch ? html` (into ${ci.base_branch})` : ''}</dd></div>` : ''}
${ci.commit ? html`<div data-ci="commit"><dt>Commit</dt><dd class="mono">${ci.commit}${address(commitUrl(ci))}</dd></div>` : ''}
${ci.pr ? html`<div data-ci="pr"><dt>${ci.provider === 'gitlab' ? 'Merge request' : 'Pull request'}</dt><dd>${ci.provider === 'gitlab' ? '!' : '#'}${ci.pr.replace(/^[#!]/, '')}${address(pullRequestUrl(ci))}</dd></div>` : ''}
${ci.run_url ? html`<div data-ci="run"><dt>CI run</dt><dd class="url mono">${ci.run_url}</dd></div>` : ''}`;
}

export function summary(report: ScanReport): Html {
  const failure = report.failure_reason
    ? html`<div class="banner bad failure-reason"><strong>${report.status === 'failed' ? 'The scan failed' : 'Reason'}</strong><span class="url">${report.failure_reason}</span></div>`
    : '';
  return html`<section id="summary" aria-labelledby="summary-title">
<h2 id="summary-title">Summary</h2>
${failure}
<dl class="facts">
<div><dt>Target</dt><dd class="url mono">${report.url}</dd></div>
${report.spec_url ? html`<div><dt>Specification</dt><dd class="url mono">${report.spec_url}</dd></div>` : ''}
${ciFacts(report)}
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
  (s) =>
    html`<div class="card"><div class="n" style="color: var(--${s})">${formatNumber(report.severity_counts?.[s] ?? 0)}</div><div class="l">${SEVERITY_LABEL[s]}</div></div>`,
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
  (s) =>
    html`<tr data-severity="${s}"><td><span class="sev sev-${s}">${SEVERITY_LABEL[s]}</span></td><td class="num" data-count="${report.severity_counts?.[s] ?? 0}">${formatNumber(report.severity_counts?.[s] ?? 0)}</td></tr>`,
)}
</tbody>
</table>
</section>`;
}
