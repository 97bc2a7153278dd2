/** Compliance reports for finished security/full scans: per-control findings, a 0-100 score, JSON and self-contained HTML. */
import type { ScanReport } from '../../domain/results.js';
import type { Task } from '../../domain/scan.js';
import { FRAMEWORK_INFO, FRAMEWORKS, type Framework } from './frameworks.js';

export { FRAMEWORKS, FRAMEWORK_INFO, type Framework };

/** Points a control loses per failed finding; a control's score is 100 minus these, floored at 0. */
export const SEVERITY_PENALTY: Record<string, number> = { critical: 50, high: 30, medium: 15, low: 5, info: 0 };

export interface ControlResult {
  id: string;
  title: string;
  status: 'pass' | 'fail' | 'not_tested';
  checks_run: number;
  score: number | null;
  findings: Array<{ id: string; title: string; severity: string; endpoint: string | null; parameter: string | null; cwe: string | null; owasp: string | null }>;
}

export interface ComplianceReport {
  framework: Framework;
  framework_name: string;
  scan_id: string;
  target: string;
  generated_at: string;
  /** Mean of the tested controls' scores (100 when no control was tested; see coverage). */
  score: number;
  coverage: { controls: number; tested: number };
  controls: ControlResult[];
  disclaimer: string;
}

export function complianceReport(report: Pick<ScanReport, 'scan_id' | 'url' | 'tasks'>, framework: Framework, now = new Date()): ComplianceReport {
  const info = FRAMEWORK_INFO[framework];
  const security = report.tasks.filter((t: Task) => t.kind !== 'functional' && (t.owasp || t.severity));
  const controls: ControlResult[] = info.controls.map((c) => {
    const tasks = security.filter((t) => c.owasp.includes('*') || (t.owasp !== undefined && c.owasp.includes(t.owasp)));
    const failed = tasks.filter((t) => t.status === 'failed');
    const score = tasks.length === 0 ? null : Math.max(0, 100 - failed.reduce((s, t) => s + (SEVERITY_PENALTY[t.severity ?? 'info'] ?? 0), 0));
    return {
      id: c.id,
      title: c.title,
      status: tasks.length === 0 ? 'not_tested' : failed.length ? 'fail' : 'pass',
      checks_run: tasks.length,
      score,
      findings: failed.map((t) => ({
        id: t.task_id,
        title: t.name,
        severity: t.severity ?? 'info',
        endpoint: t.endpoint ?? null,
        parameter: t.parameter ?? null,
        cwe: t.cwe ?? null,
        owasp: t.owasp ?? null,
      })),
    };
  });
  const tested = controls.filter((c) => c.score !== null);
  const score = tested.length ? Math.round(tested.reduce((s, c) => s + c.score!, 0) / tested.length) : 100;
  return {
    framework,
    framework_name: info.name,
    scan_id: report.scan_id,
    target: report.url,
    generated_at: now.toISOString(),
    score,
    coverage: { controls: controls.length, tested: tested.length },
    controls,
    disclaimer:
      framework === 'owasp-api-2023'
        ? 'Automated dynamic testing of the API described by its specification; it evidences, not certifies, resistance to each category.'
        : 'Best-effort mapping from OWASP API Top 10 2023 checks to this framework. An automated scan evidences part of a control only; it is not an audit.',
  };
}

const esc = (v: unknown) => String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Self-contained HTML: inline CSS, no scripts, no external loads. */
export function complianceHtml(r: ComplianceReport): string {
  const rows = r.controls
    .map((c) => {
      const findings = c.findings.length
        ? `<ul>${c.findings.map((f) => `<li><span class="sev ${esc(f.severity)}">${esc(f.severity)}</span> ${esc(f.title)}${f.endpoint ? ` <code>${esc(f.endpoint)}</code>` : ''}${f.parameter ? ` (parameter <code>${esc(f.parameter)}</code>)` : ''}${f.cwe ? ` ${esc(f.cwe)}` : ''}</li>`).join('')}</ul>`
        : '';
      return `<tr class="${c.status}"><td>${esc(c.id)}</td><td>${esc(c.title)}${findings}</td><td>${esc(c.status.replace('_', ' '))}</td><td>${c.checks_run}</td><td>${c.score ?? '-'}</td></tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${esc(r.framework_name)} — scan ${esc(r.scan_id)}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1a1a1a}table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.4rem;vertical-align:top;text-align:left}
tr.fail td:nth-child(3){color:#b00020;font-weight:600}tr.pass td:nth-child(3){color:#1b7f3b}tr.not_tested{color:#777}.score{font-size:2.5rem;font-weight:700}
.sev{display:inline-block;padding:0 .35rem;border-radius:3px;color:#fff;background:#666;font-size:12px}.sev.critical{background:#7b0016}.sev.high{background:#c62828}.sev.medium{background:#ef6c00}.sev.low{background:#607d8b}</style>
</head><body>
<h1>${esc(r.framework_name)}</h1>
<p>Scan <code>${esc(r.scan_id)}</code> of <code>${esc(r.target)}</code>, generated ${esc(r.generated_at)}</p>
<p class="score">${r.score}/100</p>
<p>${r.coverage.tested} of ${r.coverage.controls} controls tested.</p>
<table><thead><tr><th>Control</th><th>Title and findings</th><th>Status</th><th>Checks</th><th>Score</th></tr></thead><tbody>
${rows}
</tbody></table>
<p><small>${esc(r.disclaimer)}</small></p>
</body></html>
`;
}
