/** The scans list: filters and pages in the address (shareable), live rows (socket + polling while a scan runs), cancel. */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, pollInterval } from '../api.js';
import { Badge, duration, ErrorBox, Loading, Pager, since, useLoad, when } from '../components.js';
import type { LiveSocket } from '../live.js';
import { href, navigate } from '../router.js';
import { session } from '../session.js';
import type { ScanListItem } from '../types.js';

const STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'];
const MODES = ['security', 'functional', 'full'];
/** Poll while a scan is queued or running (progress has no event of its own), and slower when idle (scans started elsewhere). */
const ACTIVE_POLL_MS = 3000;
const IDLE_POLL_MS = 10_000;

export function ScansPage({ live, params }: { live: LiveSocket; params: URLSearchParams }) {
  const status = params.get('status') ?? '';
  const mode = params.get('mode') ?? '';
  const target = params.get('target') ?? '';
  // The CI branch (ci.branch): the scans of a target on one branch, as the scan page's "All scans of this target on this branch" links.
  const branch = params.get('branch') ?? '';
  const page = Number(params.get('page') ?? '1') || 1;
  const list = useLoad(
    (signal) => api('get', '/scans', { query: { status, mode, target, branch, page, per_page: 20 }, signal }),
    [status, mode, target, branch, page],
  );
  const [targetInput, setTargetInput] = useState(target);
  const [actionError, setActionError] = useState<ApiFailure | undefined>();
  useEffect(() => setTargetInput(target), [target]);

  // A finished scan arrives over the socket; queued and running ones are followed by polling the list.
  useEffect(() => live.on(() => list.reload()), [live, list.reload]);
  const active = list.data?.scans.some((s) => s.status === 'queued' || s.status === 'running') ?? false;
  useEffect(() => {
    const timer = setInterval(
      () => {
        if (document.visibilityState === 'visible') list.reload();
      },
      pollInterval(active ? ACTIVE_POLL_MS : IDLE_POLL_MS),
    );
    return () => clearInterval(timer);
  }, [active, list.reload]);

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    next.delete('page');
    const text = next.toString();
    navigate(`/scans${text ? `?${text}` : ''}`);
  };
  const goPage = (n: number) => {
    const next = new URLSearchParams(params);
    next.set('page', String(n));
    navigate(`/scans?${next.toString()}`);
  };
  const cancel = async (scan: ScanListItem) => {
    setActionError(undefined);
    try {
      await api('post', '/scan/{id}/cancel', { path: { id: scan.scan_id } });
      list.reload();
    } catch (error) {
      setActionError(error as ApiFailure);
    }
  };
  const targets = [...new Set(list.data?.scans.map((s) => s.url) ?? [])];

  return (
    <section aria-labelledby="scans-title">
      <div class="title-row">
        <h1 id="scans-title">Scans</h1>
        {session.can('operate') && (
          <a class="button" href={href('/scans/new')}>
            Start a scan
          </a>
        )}
      </div>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter('target', targetInput.trim());
        }}
      >
        <label>
          Status
          <select value={status} onChange={(e) => setFilter('status', (e.target as HTMLSelectElement).value)}>
            <option value="">All</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Mode
          <select value={mode} onChange={(e) => setFilter('mode', (e.target as HTMLSelectElement).value)}>
            <option value="">All</option>
            {MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <label>
          Target
          <input
            type="url"
            list="targets"
            placeholder="https://… (exact)"
            value={targetInput}
            onInput={(e) => setTargetInput((e.target as HTMLInputElement).value)}
          />
          <datalist id="targets">
            {targets.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        </label>
        <button type="submit">Filter</button>
        {branch && (
          <span class="small" data-testid="branch-filter">
            branch <code>{branch}</code>
          </span>
        )}
        {(status || mode || target || branch) && (
          <a href={href('/scans')} class="small">
            Clear filters
          </a>
        )}
      </form>
      {actionError && <ErrorBox error={actionError} />}
      {list.error && <ErrorBox error={list.error} />}
      {!list.data && !list.error && <Loading what="Loading scans" />}
      {list.data && list.data.scans.length === 0 && (
        <p class="empty">
          No scans {status || mode || target ? 'match these filters' : 'yet'}. <a href={href('/scans/new')}>Start one</a>.
        </p>
      )}
      {list.data && list.data.scans.length > 0 && (
        <div class="table-wrap">
          <table class="scans">
            <caption class="sr-only">Scans, most recent first ({list.data.total} in all)</caption>
            <thead>
              <tr>
                <th scope="col">Target</th>
                <th scope="col">Mode</th>
                <th scope="col">Status</th>
                <th scope="col">Passed</th>
                <th scope="col">Failed</th>
                <th scope="col">Total</th>
                <th scope="col">Duration</th>
                <th scope="col">Started</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.scans.map((scan) => (
                <tr key={scan.scan_id} data-scan-id={scan.scan_id} data-status={scan.status}>
                  <td class="target">
                    <a href={href(`/scans/${encodeURIComponent(scan.scan_id)}`)}>{scan.url}</a>
                    <div class="muted small">{scan.scan_id}</div>
                    {scan.ci?.branch && (
                      <div class="muted small" data-testid="scan-branch">
                        <a href={href(`/scans?target=${encodeURIComponent(scan.url)}&branch=${encodeURIComponent(scan.ci.branch)}`)}>{scan.ci.branch}</a>
                        {scan.ci.commit && <code> {scan.ci.commit.slice(0, 7)}</code>}
                        {scan.ci.pr && ` · ${scan.ci.provider === 'gitlab' ? '!' : '#'}${scan.ci.pr}`}
                      </div>
                    )}
                  </td>
                  <td>{scan.mode}</td>
                  <td>
                    <Badge kind={scan.status}>{scan.status}</Badge>
                    {(scan.status === 'running' || scan.status === 'queued') && session.can('operate') && (
                      <progress max={100} value={scan.progress_percent} aria-label={`Progress of ${scan.scan_id}`}>
                        {scan.progress_percent} %
                      </progress>
                    )}
                  </td>
                  <td>{scan.passed ?? '–'}</td>
                  <td>{scan.failed ?? '–'}</td>
                  <td>{scan.total ?? '–'}</td>
                  <td>{duration(since(scan.created_at, scan.completed_at))}</td>
                  <td>{when(scan.created_at)}</td>
                  <td>
                    {(scan.status === 'running' || scan.status === 'queued') && session.can('operate') && (
                      <button type="button" class="small" onClick={() => void cancel(scan)}>
                        Cancel<span class="sr-only"> scan {scan.scan_id}</span>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && <Pager page={list.data.page} totalPages={list.data.total_pages} onPage={goPage} />}
    </section>
  );
}
