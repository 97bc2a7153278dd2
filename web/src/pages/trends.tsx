/** Trends per target over its last completed scans: findings by severity, accessibility, performance, diffs. */
import { api } from '../api.js';
import { LineChart } from '../chart.js';
import { ErrorBox, Loading, useLoad } from '../components.js';
import { navigate } from '../router.js';
import type { Results, ScanListItem } from '../types.js';

const LAST = 10;

interface Point {
  scan: ScanListItem;
  severity?: Partial<NonNullable<Results['severity_counts']>>;
  a11y?: number | null;
  perf?: number | null;
  diffs?: number | null;
}

async function points(target: string, signal: AbortSignal): Promise<Point[]> {
  const list = await api('get', '/scans', { query: { target, status: 'completed', per_page: LAST }, signal });
  const scans = [...list.scans].reverse();
  return Promise.all(
    scans.map(async (scan): Promise<Point> => {
      const point: Point = { scan };
      const path = { id: scan.scan_id };
      if (scan.mode !== 'functional') point.severity = (await api('get', '/scan/{id}/results', { path, signal })).severity_counts ?? {};
      if (scan.mode !== 'security') {
        const summary = await api('get', '/scan/{id}/functional-results', { path, signal }).catch(() => undefined);
        point.a11y = summary?.accessibility?.compliance_score ?? null;
        point.perf = summary?.performance?.performance_score ?? null;
        point.diffs = summary?.visual_regression?.diffs_detected ?? null;
      }
      return point;
    }),
  );
}

export function TrendsPage({ params }: { params: URLSearchParams }) {
  const target = params.get('target') ?? '';
  const recent = useLoad((signal) => api('get', '/scans', { query: { per_page: 100 }, signal }), []);
  const data = useLoad((signal) => (target ? points(target, signal) : Promise.resolve([] as Point[])), [target]);
  const targets = [...new Set(recent.data?.scans.map((s) => s.url) ?? [])];
  if (!target && targets.length > 0 && !recent.loading) queueMicrotask(() => navigate(`/trends?target=${encodeURIComponent(targets[0]!)}`, { replace: true }));

  const pts = data.data ?? [];
  const x = pts.map((_, i) => i);
  const labels = pts.map((p) => new Date(p.scan.created_at).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }));
  const security = pts.some((p) => p.severity);
  const functional = pts.some((p) => p.a11y !== undefined);
  return (
    <section aria-labelledby="trends-title">
      <h1 id="trends-title">Trends</h1>
      <div class="filters">
        <label>
          Target
          <select value={target} onChange={(e) => navigate(`/trends?target=${encodeURIComponent((e.target as HTMLSelectElement).value)}`)}>
            {!target && <option value="">(choose)</option>}
            {targets.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
      </div>
      {recent.error && <ErrorBox error={recent.error} />}
      {data.error && <ErrorBox error={data.error} />}
      {recent.data && targets.length === 0 && <p class="empty">No scans yet: trends appear after a few completed scans of a target.</p>}
      {target && data.loading && !data.data && <Loading what="Loading the last scans" />}
      {target && data.data && pts.length === 0 && <p class="empty">No completed scan of this target yet.</p>}
      {pts.length > 0 && (
        <>
          <p class="muted">
            The last {pts.length} completed scan{pts.length === 1 ? '' : 's'} of {target}, oldest first.
          </p>
          <div class="charts">
            {security && (
              <LineChart
                title="Findings by severity"
                x={x}
                xLabels={labels}
                series={[
                  { label: 'Critical', values: pts.map((p) => (p.severity ? Number(p.severity.critical ?? 0) : null)), color: '#991b1b' },
                  { label: 'High', values: pts.map((p) => (p.severity ? Number(p.severity.high ?? 0) : null)), color: '#c2410c' },
                  { label: 'Medium', values: pts.map((p) => (p.severity ? Number(p.severity.medium ?? 0) : null)), color: '#a16207' },
                  { label: 'Low', values: pts.map((p) => (p.severity ? Number(p.severity.low ?? 0) : null)), color: '#1d4ed8' },
                ]}
              />
            )}
            {functional && (
              <>
                <LineChart
                  title="Accessibility and performance scores"
                  x={x}
                  xLabels={labels}
                  series={[
                    { label: 'Accessibility', values: pts.map((p) => p.a11y ?? null), color: '#15803d' },
                    { label: 'Performance', values: pts.map((p) => p.perf ?? null), color: '#7c3aed' },
                  ]}
                />
                <LineChart
                  title="Pages with a visual diff"
                  x={x}
                  xLabels={labels}
                  series={[{ label: 'Diffs', values: pts.map((p) => p.diffs ?? null), color: '#be185d' }]}
                />
              </>
            )}
          </div>
        </>
      )}
    </section>
  );
}
