/** A security (or full) scan's findings: severity chart, findings grouped by check, evidence, coverage, compliance. */
import { useState } from 'preact/hooks';
import { api, ApiFailure, download } from '../api.js';
import { Bars } from '../chart.js';
import { Badge, ErrorBox } from '../components.js';
import type { ComplianceReport, Results, SecurityCheck, Task } from '../types.js';
import { TriageAction } from './triage.js';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
const RANK: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };
const FRAMEWORKS = [
  ['owasp-api-2023', 'OWASP API Security Top 10 (2023)'],
  ['pci-dss-4', 'PCI DSS 4'],
  ['soc2', 'SOC 2'],
] as const;

interface Group {
  check: string;
  tasks: Task[];
  info?: SecurityCheck;
  worst: string;
}

function groupFindings(results: Results): Group[] {
  const checks = new Map((results.security?.checks ?? []).map((c) => [c.id, c]));
  const groups = new Map<string, Group>();
  for (const task of results.tasks ?? []) {
    if (task.status !== 'failed' || task.kind === 'functional') continue;
    if (task.kind === undefined && task.severity === undefined) continue;
    const check = task.check ?? task.name;
    const group = groups.get(check) ?? { check, tasks: [], info: checks.get(check), worst: 'info' };
    group.tasks.push(task);
    if ((RANK[task.severity ?? 'info'] ?? 4) < (RANK[group.worst] ?? 4)) group.worst = task.severity ?? 'info';
    groups.set(check, group);
  }
  return [...groups.values()].sort((a, b) => (RANK[a.worst] ?? 4) - (RANK[b.worst] ?? 4) || a.check.localeCompare(b.check));
}

export function SecurityResults({ results, id, onTriaged }: { results: Results; id: string; onTriaged?: () => void }) {
  const groups = groupFindings(results);
  const counts = results.severity_counts ?? {};
  const coverage = results.security?.coverage;
  return (
    <section aria-labelledby="sec-title" class="section">
      <h2 id="sec-title">Security</h2>
      <div class="two-col">
        <Bars title="Findings by severity" items={SEVERITIES.map((s) => ({ label: s, value: Number((counts as Record<string, number>)[s] ?? 0), kind: s }))} />
        {coverage && (
          <div class="card">
            <h3>Coverage</h3>
            <p>
              {coverage.operations_2xx} of {coverage.operations_total} operations answered 2xx; {coverage.resources_created} resources created,{' '}
              {coverage.resources_deleted} deleted again.
            </p>
          </div>
        )}
      </div>
      <h3>Findings ({groups.reduce((n, g) => n + g.tasks.length, 0)})</h3>
      {groups.length === 0 && (
        <p class="empty">
          {results.not_tested && !results.not_tested.everything_tested
            ? 'No findings in what was tested: see "Not tested" above.'
            : 'No findings: every security check passed.'}
        </p>
      )}
      {groups.map((group) => (
        <FindingGroup key={group.check} group={group} onTriaged={onTriaged} />
      ))}
      {coverage && <Coverage coverage={coverage} />}
      <Compliance id={id} />
    </section>
  );
}

function FindingGroup({ group, onTriaged }: { group: Group; onTriaged?: () => void }) {
  const info = group.info;
  const first = group.tasks[0]!;
  const operations = new Set(group.tasks.flatMap((t) => [...(t.endpoint ? [t.endpoint] : []), ...(t.endpoints ?? [])])).size || 1;
  const owasp = info?.owasp ?? (first.owasp ? { id: first.owasp, url: '' } : undefined);
  const cwe = info?.cwe ?? (first.cwe ? { id: first.cwe, url: `https://cwe.mitre.org/data/definitions/${first.cwe.replace(/^CWE-/, '')}.html` } : undefined);
  return (
    <details class="finding" data-check={group.check}>
      <summary>
        <Badge kind={group.worst}>{group.worst}</Badge> <strong>{info?.title ?? first.name}</strong>{' '}
        <span class="muted">
          {group.tasks.length} finding{group.tasks.length === 1 ? '' : 's'} on {operations} operation{operations === 1 ? '' : 's'} · {group.check}
        </span>
      </summary>
      <div class="finding-body">
        {info && (
          <dl class="explain">
            <dt>What the check does</dt>
            <dd>{info.description}</dd>
            <dt>Risk</dt>
            <dd>{info.risk}</dd>
            <dt>Remediation</dt>
            <dd>{info.remediation}</dd>
          </dl>
        )}
        <p class="refs">
          {owasp && (owasp.url ? <a href={owasp.url} rel="noreferrer" target="_blank">{`OWASP ${owasp.id}`}</a> : <span>OWASP {owasp.id}</span>)}
          {cwe && (
            <a href={cwe.url} rel="noreferrer" target="_blank">
              {cwe.id}
            </a>
          )}
          {info?.references.map((r) => (
            <a key={r.url} href={r.url} rel="noreferrer" target="_blank">
              {r.title}
            </a>
          ))}
        </p>
        <ul class="tasks">
          {group.tasks.map((task) => (
            <li key={task.task_id}>
              <div>
                <Badge kind={task.severity ?? 'info'}>{task.severity ?? 'info'}</Badge> {task.name}
              </div>
              <div class="muted small">
                {task.endpoint && <code>{task.endpoint}</code>}
                {task.parameter && (
                  <>
                    {' '}
                    · parameter <code>{task.parameter}</code>
                  </>
                )}
                {task.endpoints && task.endpoints.length > 0 && (
                  <>
                    {' '}
                    · on{' '}
                    {task.endpoints.map((e) => (
                      <code key={e}>{e}</code>
                    ))}
                  </>
                )}
                {task.invented_values && ' · verdict rests on invented values'}
              </div>
              {onTriaged && <TriageAction finding={task} onChange={onTriaged} />}
              {task.evidence && (
                <details class="evidence">
                  <summary>Evidence</summary>
                  <pre>{task.evidence}</pre>
                </details>
              )}
            </li>
          ))}
        </ul>
      </div>
    </details>
  );
}

function Coverage({ coverage }: { coverage: NonNullable<NonNullable<Results['security']>['coverage']> }) {
  return (
    <details class="section">
      <summary>
        <h3 class="inline">Coverage per check and operation</h3>
      </summary>
      <div class="table-wrap">
        <table>
          <caption>Where each check ran</caption>
          <thead>
            <tr>
              <th scope="col">Check</th>
              <th scope="col">Ran on</th>
              <th scope="col">Not run</th>
            </tr>
          </thead>
          <tbody>
            {coverage.checks.map((c) => (
              <tr key={c.check}>
                <td>{c.title}</td>
                <td>{c.ran}</td>
                <td>{c.not_run.map((n) => `${n.count} (${n.reason})`).join(', ') || '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="table-wrap">
        <table>
          <caption>What each operation answered</caption>
          <thead>
            <tr>
              <th scope="col">Operation</th>
              <th scope="col">Statuses</th>
              <th scope="col">2xx reached (primary / secondary / anonymous)</th>
              <th scope="col">Requests</th>
            </tr>
          </thead>
          <tbody>
            {coverage.operations.map((o) => (
              <tr key={o.endpoint}>
                <td>
                  <code>{o.endpoint}</code>
                  {o.skipped && <div class="muted small">skipped: {o.skipped}</div>}
                </td>
                <td>{o.statuses.join(', ') || '–'}</td>
                <td>
                  {[o.reached_2xx.primary, o.reached_2xx.secondary, o.reached_2xx.anonymous].map((v) => (v === null ? '–' : v ? 'yes' : 'no')).join(' / ')}
                </td>
                <td>{o.requests}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

function Compliance({ id }: { id: string }) {
  const [framework, setFramework] = useState<string>(FRAMEWORKS[0][0]);
  const [report, setReport] = useState<ComplianceReport | undefined>();
  const [error, setError] = useState<ApiFailure | undefined>();
  const load = async () => {
    setError(undefined);
    try {
      setReport(await api('get', '/scan/{id}/compliance', { path: { id }, query: { framework } }));
    } catch (e) {
      setError(e as ApiFailure);
    }
  };
  return (
    <section class="section" aria-labelledby="compliance-title">
      <h3 id="compliance-title">Compliance</h3>
      <div class="filters">
        <label>
          Framework
          <select value={framework} onChange={(e) => setFramework((e.target as HTMLSelectElement).value)}>
            {FRAMEWORKS.map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => void load()}>
          Show report
        </button>
        <button
          type="button"
          class="small"
          onClick={() =>
            download('/scan/{id}/compliance', { path: { id }, query: { framework, format: 'html' } }, `compliance-${framework}.html`).catch(setError)
          }
        >
          Download HTML
        </button>
      </div>
      {error && <ErrorBox error={error} />}
      {report && (
        <div class="table-wrap">
          <table>
            <caption>
              {report.framework_name}: score {report.score ?? '–'}, {report.coverage.tested} of {report.coverage.controls} controls tested
            </caption>
            <thead>
              <tr>
                <th scope="col">Control</th>
                <th scope="col">Status</th>
                <th scope="col">Score</th>
                <th scope="col">Findings</th>
              </tr>
            </thead>
            <tbody>
              {report.controls.map((c) => (
                <tr key={c.id}>
                  <td>
                    {c.id} {c.title}
                  </td>
                  <td>
                    <Badge kind={c.status === 'fail' ? 'failed' : c.status === 'pass' ? 'completed' : 'queued'}>{c.status}</Badge>
                  </td>
                  <td>{c.score ?? '–'}</td>
                  <td>{c.findings.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
