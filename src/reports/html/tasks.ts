/** Every task of the scan, grouped by severity (failed first, passed collapsed). */
import type { ReportTask, ScanReport } from '../../domain/results.js';
import { SEVERITIES, type SecurityCheckInfo, type SecurityOutcome, type Severity, type Task } from '../../domain/scan.js';
import { Html, html, SEVERITY_LABEL, SEVERITY_RANK, formatMs, plural } from './markup.js';
import { suppressedNote } from './suppressed.js';

// ---------------------------------------------------------------------------------------------------
// Tasks

export type Group = { key: Severity | 'none'; label: string; tasks: Task[] };

export function groupTasks(tasks: Task[]): Group[] {
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
export type CheckIndex = Map<string, { info: SecurityCheckInfo; anchor: string }>;

export function checkIndex(security: SecurityOutcome | null): CheckIndex {
  const index: CheckIndex = new Map();
  // Anchors are numbered, so a check id with any characters still gives a valid fragment.
  security?.checks.forEach((info, i) => {
    if (!index.has(info.id)) index.set(info.id, { info, anchor: `check-${i + 1}` });
  });
  return index;
}

/** An OWASP or CWE reference: the id, and its URL as text. */
export function reference(ref: { id: string; url: string }): Html | '' {
  if (!ref.id && !ref.url) return '';
  return html`<div>${ref.id}${ref.url ? html` <span class="refs url mono">${ref.url}</span>` : ''}</div>`;
}

export function referencesList(info: SecurityCheckInfo): Html {
  return html`${reference(info.owasp)}${reference(info.cwe)}${info.references.map((r) => html`<div>${r.title}${r.url ? html` <span class="refs url mono">${r.url}</span>` : ''}</div>`)}`;
}

/** Description, risk, remediation and references of a finding's check, under the finding. */
export function checkExplanation(info: SecurityCheckInfo, anchor: string): Html {
  return html`<details class="check-info" data-check="${info.id}"><summary>About this check: risk, remediation, references</summary>
<dl>
${info.description ? html`<dt>What it checks</dt><dd>${info.description}</dd>` : ''}
${info.risk ? html`<dt>Risk</dt><dd>${info.risk}</dd>` : ''}
${info.remediation ? html`<dt>Remediation</dt><dd class="remediation">${info.remediation}</dd>` : ''}
<dt>References</dt><dd>${referencesList(info)}<div><a href="#${anchor}">Check catalogue entry</a></div></dd>
</dl>
</details>`;
}

export function endpointsList(endpoints: string[]): Html {
  return html`<div class="refs">${plural(endpoints.length, 'operation')} affected</div><ul class="endpoints">${endpoints.map((e) => html`<li><code>${e}</code></li>`)}</ul>`;
}

export const INVENTED_NOTE = 'No real resource was found to test with: the verdict rests on invented values';

export function taskRow(task: ReportTask, showDuration: boolean, checks: CheckIndex): Html {
  const known = task.check ? checks.get(task.check) : undefined;
  const checkRef =
    task.check &&
    (known
      ? html`<span>check <a href="#${known.anchor}">${known.info.title || task.check}</a> <code>${task.check}</code></span>`
      : html`<span>check <code>${task.check}</code></span>`);
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
    suppressedNote(task.suppressed),
    task.invented_values ? html`<div class="refs invented-values">${INVENTED_NOTE}.</div>` : '',
    task.error ? html`<details class="error"${task.status === 'failed' ? ' open' : ''}><summary>Error</summary><pre>${task.error}</pre></details>` : '',
    task.evidence ? html`<details class="evidence"><summary>Evidence</summary><pre>${task.evidence}</pre></details>` : '',
    known && task.status === 'failed' ? checkExplanation(known.info, known.anchor) : '',
  ];
  return html`<tr class="task task-${task.status}${task.suppressed ? ' suppressed' : ''}" data-task-id="${task.task_id}" data-status="${task.status}"${task.severity ? html` data-severity="${task.severity}"` : ''}>
<td><span class="badge ${task.status === 'passed' ? 'pass' : 'fail'}">${task.status}</span>${task.invented_values ? html`<span class="badge invented" title="${INVENTED_NOTE}">invented values</span>` : ''}</td>
<td><div class="task-name">${task.name}</div><div class="refs mono">${task.task_id}</div>${refs.length ? html`<div class="refs">${refs.map((r, i) => html`${i ? ' · ' : ''}${r}`)}</div>` : ''}${blocks}</td>
<td>${target}</td>
${showDuration ? html`<td class="num">${task.duration_ms !== undefined ? formatMs(task.duration_ms) : '—'}</td>` : ''}
</tr>`;
}

export function tasksSection(report: ScanReport, checks: CheckIndex): Html {
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
  const table = (tasks: ReportTask[]) => html`<table class="tasks">
<thead><tr><th style="width: 84px">Result</th><th>Task</th><th style="width: 28%">Endpoint</th>${showDuration ? html`<th class="num" style="width: 90px">Duration</th>` : ''}</tr></thead>
<tbody>
${tasks.map((t) => taskRow(t, showDuration, checks))}
</tbody>
</table>`;
  return html`<section class="task-group" id="severity-${g.key}" data-group="${g.key}">
<h3><span class="dot sev-${g.key}"></span>${g.label} <span class="muted">${failed.length} failed · ${passed.length} passed</span></h3>
${failed.length ? table(failed) : ''}
${
  passed.length
    ? html`<details class="passed-tasks" data-passed="${passed.length}"><summary>${plural(passed.length, 'passed task')}</summary>
${table(passed)}
</details>`
    : ''
}
</section>`;
})}
</section>`;
}
