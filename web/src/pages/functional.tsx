/**
 * A functional (or full) scan: visual diffs with slider / onion skin and approval, accessibility, performance.
 * A visual diff, an accessibility violation and a missed budget show their triage and offer Suppress /
 * Un-suppress (triage.tsx).
 */
import { useState } from 'preact/hooks';
import { rateMetric, type RatedMetric } from '../../../src/domain/metric-ratings.js';
import { formatMetric, METRICS as METRIC_TABLE } from '../../../src/domain/metrics.js';
import { api, ApiFailure } from '../api.js';
import { Badge, ErrorBox, Loading, percent, useLoad } from '../components.js';
import { session } from '../session.js';
import type { Baseline, BudgetLine, PerformancePage, Results, VisualPage } from '../types.js';
import { TriageAction } from './triage.js';

export function FunctionalResults({ results, id, scanId }: { results: Results; id: string; scanId: string }) {
  const failed = (results.tasks ?? []).filter((t) => t.status === 'failed' && t.kind !== 'security' && t.severity === undefined);
  return (
    <>
      <Visual id={id} scanId={scanId} />
      <Accessibility id={id} />
      <Performance id={id} />
      {failed.length > 0 && (
        <section class="section" aria-labelledby="ftasks-title">
          <h2 id="ftasks-title">Failed checks</h2>
          <ul class="tasks">
            {failed.map((t) => (
              <li key={t.task_id}>
                <strong>{t.name}</strong>
                {t.error && <pre>{t.error}</pre>}
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}

function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

function Visual({ id, scanId }: { id: string; scanId: string }) {
  const report = useLoad((signal) => api('get', '/scan/{id}/visual-regression', { path: { id }, signal }), [id]);
  return (
    <section class="section" aria-labelledby="visual-title">
      <h2 id="visual-title">Visual regression</h2>
      {report.error && <ErrorBox error={report.error} />}
      {!report.data && !report.error && <Loading what="Loading screenshots" />}
      {report.data && (
        <>
          <p>
            {report.data.comparisons} page{report.data.comparisons === 1 ? '' : 's'} compared, <strong>{report.data.diffs_detected}</strong> above the threshold
            of {report.data.diff_threshold_percent} % of pixels.
          </p>
          {report.data.pages.map((page) => (
            <VisualPageView
              key={`${page.page_url}|${page.viewport}`}
              page={page}
              scanId={scanId}
              threshold={report.data!.diff_threshold_percent}
              onTriaged={report.reload}
            />
          ))}
        </>
      )}
    </section>
  );
}

type View = 'side' | 'slider' | 'onion' | 'diff';

function VisualPageView({ page, scanId, threshold, onTriaged }: { page: VisualPage; scanId: string; threshold: number; onTriaged: () => void }) {
  const [view, setView] = useState<View>(page.diff_detected ? 'slider' : 'side');
  const [position, setPosition] = useState(50);
  const [approved, setApproved] = useState<Baseline | undefined>();
  const [error, setError] = useState<ApiFailure | undefined>();
  const [busy, setBusy] = useState(false);
  const name = page.page_key ?? pathOf(page.page_url);
  const approve = async () => {
    setError(undefined);
    setBusy(true);
    try {
      setApproved(await api('post', '/baselines/approve', { json: { scan_id: scanId, page: page.page_key ?? page.page_url } }));
    } catch (e) {
      setError(e as ApiFailure);
    } finally {
      setBusy(false);
    }
  };
  const views: [View, string][] = [
    ['side', 'Side by side'],
    ['slider', 'Slider'],
    ['onion', 'Onion skin'],
  ];
  if (page.diff_image) views.push(['diff', 'Diff']);
  return (
    <article class={`visual card ${page.diff_detected ? 'changed' : ''}`} data-page={name}>
      <header class="title-row">
        <h3>
          {name} <span class="muted small">{page.viewport}</span>
        </h3>
        <div>
          {page.baseline_created ? (
            <Badge kind="queued">baseline set by this scan</Badge>
          ) : page.diff_detected ? (
            <Badge kind="failed">
              changed: {percent(page.diff_percent, 2)} &gt; {threshold} %{page.suppressed ? ' (suppressed)' : ''}
            </Badge>
          ) : (
            <Badge kind="completed">
              unchanged: {percent(page.diff_percent, 2)} ≤ {threshold} %
            </Badge>
          )}
        </div>
      </header>
      {page.unstable && page.hint && <p class="notice warn">{page.hint}</p>}
      <TriageAction finding={page} onChange={onTriaged} />
      <div class="tabs" role="group" aria-label={`View of ${name}`}>
        {views.map(([id, label]) => (
          <button type="button" key={id} class="small" aria-pressed={view === id} onClick={() => setView(id)}>
            {label}
          </button>
        ))}
      </div>
      {view === 'side' && (
        <div class="side">
          <figure>
            <figcaption>Baseline</figcaption>
            <img src={page.screenshot_before} alt={`Baseline screenshot of ${name}`} loading="lazy" />
          </figure>
          <figure>
            <figcaption>Current</figcaption>
            <img src={page.screenshot_after} alt={`Current screenshot of ${name}`} loading="lazy" />
          </figure>
        </div>
      )}
      {(view === 'slider' || view === 'onion') && (
        <div class="compare">
          <div class="stack">
            <img src={page.screenshot_before} alt={`Baseline screenshot of ${name}`} />
            <img
              class="over"
              src={page.screenshot_after}
              alt={`Current screenshot of ${name}`}
              style={view === 'slider' ? { clipPath: `inset(0 ${100 - position}% 0 0)` } : { opacity: String(position / 100) }}
            />
            {view === 'slider' && <div class="handle" style={{ left: `${position}%` }} />}
          </div>
          <label class="range">
            {view === 'slider' ? 'Current shown up to' : 'Opacity of the current screenshot'}
            <input type="range" min={0} max={100} value={position} onInput={(e) => setPosition(Number((e.target as HTMLInputElement).value))} /> {position} %
          </label>
        </div>
      )}
      {view === 'diff' && page.diff_image && (
        <figure>
          <figcaption>Changed pixels highlighted</figcaption>
          <img src={page.diff_image} alt={`Difference between baseline and current screenshot of ${name}`} />
        </figure>
      )}
      {page.regions.length > 0 && (
        <p class="muted small">
          {page.regions.length} changed region{page.regions.length === 1 ? '' : 's'}, largest at {page.regions[0]!.x},{page.regions[0]!.y} (
          {page.regions[0]!.width}×{page.regions[0]!.height} px)
        </p>
      )}
      {!page.baseline_created && session.can('operate') && (
        <div class="approve">
          {approved ? (
            <p class="notice ok" role="status">
              Approved: the current screenshot is now the baseline of {approved.page_key} on branch {approved.branch}.
            </p>
          ) : (
            <button type="button" disabled={busy} onClick={() => void approve()}>
              Approve current as baseline<span class="sr-only"> for {name}</span>
            </button>
          )}
          {error && <ErrorBox error={error} />}
        </div>
      )}
    </article>
  );
}

function Accessibility({ id }: { id: string }) {
  const report = useLoad((signal) => api('get', '/scan/{id}/accessibility', { path: { id }, signal }), [id]);
  return (
    <section class="section" aria-labelledby="a11y-title">
      <h2 id="a11y-title">Accessibility</h2>
      {report.error && <ErrorBox error={report.error} />}
      {!report.data && !report.error && <Loading what="Loading the accessibility report" />}
      {report.data && (
        <>
          <p>
            Score <strong>{report.data.compliance_score ?? '–'}</strong> over {report.data.pages_scanned} page{report.data.pages_scanned === 1 ? '' : 's'} (
            {report.data.wcag_level}), {report.data.total_violations} violation{report.data.total_violations === 1 ? '' : 's'}, {report.data.total_needs_review}{' '}
            to review by hand
            {report.data.engine && ` · axe-core ${report.data.engine.version}`}.
          </p>
          {report.data.violations.length === 0 && <p class="empty">No violations.</p>}
          {report.data.violations.map((v) => (
            <details class="finding" key={`${v.rule}|${v.page_url}`} data-rule={v.rule} data-page={pathOf(v.page_url)}>
              <summary>
                <Badge kind={v.impact}>{v.impact}</Badge> <strong>{v.rule}</strong>{' '}
                <span class="muted">
                  WCAG {v.wcag} · {pathOf(v.page_url)} · {v.elements_affected} element{v.elements_affected === 1 ? '' : 's'}
                  {v.suppressed ? ' · suppressed' : ''}
                </span>
              </summary>
              <div class="finding-body">
                <TriageAction finding={v} onChange={report.reload} />
                <p>{v.description}</p>
                <p>
                  <a href={v.help_url} rel="noreferrer" target="_blank">
                    How to fix {v.rule}
                  </a>
                </p>
                <ul class="nodes">
                  {(v.nodes ?? []).map((n, i) => (
                    <li key={i}>
                      <code>{n.target}</code>
                      <pre>{n.html}</pre>
                      <p class="small">{n.failure_summary}</p>
                    </li>
                  ))}
                </ul>
              </div>
            </details>
          ))}
        </>
      )}
    </section>
  );
}

const METRICS: [RatedMetric, string, (v: number) => string][] = METRIC_TABLE.map((m) => [m.field, m.label, (v: number) => formatMetric(m.field, v)]);

function Performance({ id }: { id: string }) {
  const report = useLoad((signal) => api('get', '/scan/{id}/performance', { path: { id }, signal }), [id]);
  return (
    <section class="section" aria-labelledby="perf-title">
      <h2 id="perf-title">Performance</h2>
      {report.error && <ErrorBox error={report.error} />}
      {!report.data && !report.error && <Loading what="Loading the performance report" />}
      {report.data && (
        <>
          <p>
            Score <strong>{report.data.performance_score ?? '–'}</strong> over {report.data.pages_tested} page{report.data.pages_tested === 1 ? '' : 's'}.
          </p>
          <div class="table-wrap">
            <table class="metrics">
              <caption class="sr-only">Metrics per page with their ratings</caption>
              <thead>
                <tr>
                  <th scope="col">Page</th>
                  <th scope="col">Score</th>
                  <th scope="col">Rating</th>
                  {METRICS.map(([, label]) => (
                    <th scope="col" key={label}>
                      {label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {report.data.pages.map((p) => (
                  <tr key={p.page_url}>
                    <th scope="row">{pathOf(p.page_url)}</th>
                    <td>{p.performance_score ?? '–'}</td>
                    <td>
                      <Badge kind={p.rating}>{p.rating}</Badge>
                    </td>
                    {METRICS.map(([metric, label, format]) => {
                      const rating = rateMetric(metric, p[metric]);
                      return (
                        <td key={label} class={`r-${rating}`} title={rating}>
                          {format(p[metric])}
                          <span class="sr-only"> ({rating})</span>
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Budgets pages={report.data.pages} onTriaged={report.reload} />
        </>
      )}
    </section>
  );
}

/** A budget's value as its metric is shown (a timing in ms, cls with three decimals); a score as it is. */
function budgetValue(metric: string, value: number | null): string {
  if (value === null) return '–';
  const m = METRIC_TABLE.find((x) => x.budget === metric);
  return m ? formatMetric(m.field, value) : String(value);
}

/** Each page's budget lines (options.budgets judged by the server, the accessibility score's too); a missed one can be suppressed. */
function Budgets({ pages, onTriaged }: { pages: readonly PerformancePage[]; onTriaged: () => void }) {
  const rows = pages.flatMap((p) => (p.budgets ?? []).map((b: BudgetLine, i) => ({ page: pathOf(p.page_url), b, key: `${p.page_url}|${i}` })));
  if (rows.length === 0) return <p class="muted small">No budgets were set for this scan.</p>;
  return (
    <div class="table-wrap">
      <table class="list budgets">
        <caption>Budgets per page</caption>
        <thead>
          <tr>
            <th scope="col">Page</th>
            <th scope="col">Budget</th>
            <th scope="col">Actual</th>
            <th scope="col">Limit</th>
            <th scope="col">Level</th>
            <th scope="col">Result</th>
            <th scope="col">Triage</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ page, b, key }) => (
            <tr key={key} data-page={page} data-budget={b.metric} data-passed={String(b.passed)}>
              <th scope="row">{page}</th>
              <td>{b.metric}</td>
              <td>{budgetValue(b.metric, b.actual)}</td>
              <td>
                {b.kind === 'max' ? '≤' : '≥'} {budgetValue(b.metric, b.limit)}
              </td>
              <td>{b.level}</td>
              <td>
                {b.passed ? (
                  <Badge kind="completed">passed</Badge>
                ) : (
                  <Badge kind={b.level === 'warn' ? 'medium' : 'failed'}>missed{b.suppressed ? ' (suppressed)' : ''}</Badge>
                )}
              </td>
              <td>
                <TriageAction finding={b} onChange={onTriaged} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
