/** Security sections: findings grouped by check, warnings, coverage per operation and check, the check catalogue. */
import type { ReportTask, ScanReport } from '../../domain/results.js';
import { SEVERITIES, type SecurityCheckInfo, type SecurityOutcome, type Severity, type Task } from '../../domain/scan.js';
import { Html, html, SEVERITY_LABEL, SEVERITY_RANK, formatNumber, plural } from './markup.js';
import { suppressedNote } from './suppressed.js';
import { type CheckIndex, referencesList, endpointsList, INVENTED_NOTE } from './tasks.js';

// ---------------------------------------------------------------------------------------------------
// Findings: failed security tasks grouped by check

export interface FindingGroup {
  check: string;
  info: SecurityCheckInfo | undefined;
  anchor: string | undefined;
  severity: Severity | undefined;
  tasks: Task[];
  operations: string[];
}

export function findingGroups(tasks: Task[], checks: CheckIndex): FindingGroup[] {
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

export function findingRow(task: ReportTask): Html {
  const endpoints = task.endpoints?.length ? task.endpoints : task.endpoint ? [task.endpoint] : [];
  return html`<tr class="finding${task.suppressed ? ' suppressed' : ''}" data-task-ref="${task.task_id}"${task.severity ? html` data-severity="${task.severity}"` : ''}${task.suppressed ? html` data-suppressed="${task.suppressed.source}"` : ''}>
<td>${endpoints.length > 1 ? endpointsList(endpoints) : endpoints.length ? html`<code class="url">${endpoints[0]}</code>` : html`<span class="muted">the whole target</span>`}</td>
<td>${task.parameter ? html`<code>${task.parameter}</code>` : html`<span class="muted">—</span>`}</td>
<td>${task.severity ? html`<span class="sev sev-${task.severity}">${SEVERITY_LABEL[task.severity]}</span>` : '—'}</td>
<td><div class="task-name">${task.name}</div>${suppressedNote(task.suppressed)}${task.invented_values ? html`<div class="refs invented-values">${INVENTED_NOTE}.</div>` : ''}${
    task.evidence ? html`<details class="finding-evidence"><summary>Evidence</summary><pre>${task.evidence}</pre></details>` : ''
  }${task.error ? html`<pre>${task.error}</pre>` : ''}</td>
</tr>`;
}

export function findingsSection(report: ScanReport, checks: CheckIndex): Html | '' {
  const groups = findingGroups(report.tasks, checks);
  if (groups.length === 0 && !report.tasks.some((t) => t.kind === 'security' || t.check)) return '';
  return html`<section id="findings" aria-labelledby="findings-title">
<h2 id="findings-title">Findings</h2>
${
  groups.length === 0
    ? html`<p class="empty">No security finding.</p>`
    : html`<p class="muted">${plural(
        groups.reduce((n, g) => n + g.tasks.length, 0),
        'finding',
      )} in ${plural(groups.length, 'check')}, worst first: what each check found, on which operations, and how to fix it.</p>`
}
${groups.map((g) => {
  const title = g.info?.title || g.check;
  return html`<section class="finding-group${g.severity ? ` sev-border-${g.severity}` : ''}" data-check="${g.check}"${g.severity ? html` data-severity="${g.severity}"` : ''} data-findings="${g.tasks.length}" data-operations="${g.operations.length}">
<h3>${g.severity ? html`<span class="sev sev-${g.severity}">${SEVERITY_LABEL[g.severity]}</span>` : ''} ${title}${title !== g.check ? html` <code class="muted">${g.check}</code>` : ''} <span class="muted">${plural(g.tasks.length, 'finding')} · ${plural(g.operations.length, 'operation')} affected</span></h3>
${
  g.info
    ? html`<dl>
${g.info.description ? html`<dt>What it checks</dt><dd class="description">${g.info.description}</dd>` : ''}
${g.info.risk ? html`<dt>Risk</dt><dd>${g.info.risk}</dd>` : ''}
${g.info.remediation ? html`<dt>Remediation</dt><dd class="remediation">${g.info.remediation}</dd>` : ''}
<dt>References</dt><dd>${referencesList(g.info)}${g.anchor ? html`<div><a href="#${g.anchor}">Check catalogue entry</a></div>` : ''}</dd>
</dl>`
    : ''
}
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

export function warningsBanner(security: SecurityOutcome | null): Html | '' {
  if (!security || security.warnings.length === 0) return '';
  return html`<div class="banner warn security-warnings" role="alert" data-warnings="${security.warnings.length}"><strong>${security.warnings.length === 1 ? 'Warning' : 'Warnings'}: read the results with this in mind</strong><ul>${security.warnings.map((w) => html`<li>${w}</li>`)}</ul></div>`;
}

export function reachedCell(value: boolean | null): Html {
  if (value === null) return html`<td class="reached-none" data-reached="none" title="identity not configured">—</td>`;
  return value ? html`<td class="reached-yes" data-reached="yes">yes</td>` : html`<td class="reached-no" data-reached="no">no</td>`;
}

export function coverageSection(security: SecurityOutcome, checks: CheckIndex): Html {
  const { coverage } = security;
  const notes = (o: SecurityOutcome['coverage']['operations'][number]) => [
    o.skipped ? html`<div class="skipped">skipped: ${o.skipped}</div>` : '',
    o.invented_values ? html`<div class="invented-values">invented values only</div>` : '',
  ];
  return html`<section id="coverage" aria-labelledby="coverage-title">
<h2 id="coverage-title">Coverage</h2>
<p class="muted">Passed means tested: what each operation answered, with which identity a 2xx was reached, and where each check ran and, where it did not, why.</p>
<div class="cards">
<div class="card${coverage.operations_total > 0 && coverage.operations_2xx === 0 ? ' fail' : ''}"><div class="n" data-count="operations-2xx">${formatNumber(coverage.operations_2xx)} / ${formatNumber(coverage.operations_total)}</div><div class="l">Operations answered 2xx</div></div>
<div class="card"><div class="n" data-count="resources-created">${formatNumber(coverage.resources_created)}</div><div class="l">Resources created</div></div>
<div class="card"><div class="n" data-count="resources-deleted">${formatNumber(coverage.resources_deleted)}</div><div class="l">Resources deleted</div></div>
</div>
<h3>Operations</h3>
${
  coverage.operations.length === 0
    ? html`<p class="empty">No operation was recorded.</p>`
    : html`<table class="coverage-operations">
<thead><tr><th>Operation</th><th>Statuses reached</th><th>2xx first identity</th><th>2xx second identity</th><th>2xx anonymous</th><th class="num">Requests</th><th>Notes</th></tr></thead>
<tbody>
${coverage.operations.map(
  (o) => html`<tr data-endpoint="${o.endpoint}"${o.skipped ? html` data-skipped="${o.skipped}"` : ''}><td><code class="url">${o.endpoint}</code></td>
<td class="mono">${o.statuses.length ? o.statuses.map((code) => (code === 0 ? 'no response' : String(code))).join(', ') : '—'}</td>
${reachedCell(o.reached_2xx.primary)}${reachedCell(o.reached_2xx.secondary)}${reachedCell(o.reached_2xx.anonymous)}
<td class="num">${formatNumber(o.requests)}</td><td>${notes(o)}</td></tr>`,
)}
</tbody>
</table>`
}
<h3>Checks</h3>
${
  coverage.checks.length === 0
    ? html`<p class="empty">No check was recorded.</p>`
    : html`<table class="coverage-checks">
<thead><tr><th>Check</th><th class="num">Ran on</th><th>Not run</th></tr></thead>
<tbody>
${coverage.checks.map((c) => {
  const known = checks.get(c.check);
  const title = c.title || known?.info.title || c.check;
  return html`<tr data-check="${c.check}" data-ran="${c.ran}"><td>${known ? html`<a href="#${known.anchor}">${title}</a>` : title} <code>${c.check}</code></td>
<td class="num">${plural(c.ran, 'operation')}</td>
<td>${
    c.not_run.length === 0
      ? html`<span class="muted">—</span>`
      : c.not_run.map(
          (n) =>
            html`<div class="not-run" data-reason="${n.reason}">${n.reason}: ${plural(n.count, 'operation')}${n.endpoints.length ? html`<details><summary>which</summary><ul class="endpoints">${n.endpoints.map((e) => html`<li><code>${e}</code></li>`)}</ul></details>` : ''}</div>`,
        )
  }</td></tr>`;
})}
</tbody>
</table>`
}
</section>`;
}

export function checksSection(security: SecurityOutcome, checks: CheckIndex): Html {
  const entries = [...checks.values()];
  return html`<section id="checks" aria-labelledby="checks-title">
<h2 id="checks-title">Checks</h2>
${
  entries.length === 0
    ? html`<p class="empty">The scan reported no check catalogue.</p>`
    : html`<p class="muted">${plural(entries.length, 'check')}: what each one does, the risk when it fails, how to fix it, and references. Links are shown as text.</p>
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
)}`
}
${security.checks.length > entries.length ? html`<p class="muted">${plural(security.checks.length - entries.length, 'duplicate entry', 'duplicate entries')} left out.</p>` : ''}
</section>`;
}
