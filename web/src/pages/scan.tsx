/** One scan: live status while it runs, then its security and functional results. */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, download, pollInterval } from '../api.js';
import { Badge, duration, ErrorBox, Loading, since, useLoad, when } from '../components.js';
import type { LiveSocket } from '../live.js';
import { href } from '../router.js';
import type { Results, ScanStatusView } from '../types.js';
import { SecurityResults } from './security.js';
import { FunctionalResults } from './functional.js';

const POLL_MS = 2000;
const FINISHED = new Set(['completed', 'failed', 'cancelled']);

export function ScanPage({ id, live }: { id: string; live: LiveSocket }) {
  const path = `/scan/${encodeURIComponent(id)}`;
  const status = useLoad((signal) => api<ScanStatusView>(path, { signal }), [id]);
  const finished = status.data ? FINISHED.has(status.data.status) : false;
  const results = useLoad((signal) => (finished ? api<Results>(`${path}/results`, { signal }) : Promise.resolve(undefined)), [id, finished]);
  const [actionError, setActionError] = useState<ApiFailure | undefined>();

  // Finished: announced on the socket. Until then, polled (progress_percent has no event of its own).
  useEffect(() => live.on((message) => message.scan_id === id && status.reload()), [live, id, status.reload]);
  useEffect(() => {
    if (!status.data || finished) return;
    const timer = setInterval(status.reload, pollInterval(POLL_MS));
    return () => clearInterval(timer);
  }, [status.data?.status, finished, status.reload]);

  // An id the API cannot even take (422: too long, say) names no scan either: "not found" as well.
  if (status.error) return <ErrorBox error={status.error.status === 422 ? new ApiFailure(404, 'NOT_FOUND', status.error.message) : status.error} what={`Scan ${id}`} />;
  if (!status.data) return <Loading what="Loading the scan" />;
  const scan = status.data;

  const cancel = async () => {
    setActionError(undefined);
    try {
      await api<ScanStatusView>(`${path}/cancel`, { method: 'POST' });
      status.reload();
    } catch (error) {
      setActionError(error as ApiFailure);
    }
  };

  return (
    <article aria-labelledby="scan-title">
      <p class="crumbs">
        <a href={href('/scans')}>Scans</a> / <span>{scan.scan_id}</span>
      </p>
      <div class="title-row">
        <h1 id="scan-title">
          {scan.mode} scan of <span class="target">{scan.url}</span>
        </h1>
        {!finished && (
          <button type="button" onClick={() => void cancel()}>
            Cancel scan
          </button>
        )}
      </div>
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <Badge kind={scan.status}>
              <span data-testid="scan-status">{scan.status}</span>
            </Badge>
          </dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{when(scan.created_at)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{duration(results.data?.elapsed_seconds ?? since(scan.created_at, scan.completed_at))}</dd>
        </div>
        {results.data?.total !== undefined && (
          <div>
            <dt>Tasks</dt>
            <dd>
              {results.data.passed} passed, {results.data.failed} failed of {results.data.total}
            </dd>
          </div>
        )}
      </dl>
      {!finished && (
        <div class="progress-row" role="status">
          <progress max={100} value={scan.progress_percent} aria-label="Scan progress" /> {scan.progress_percent} %
        </div>
      )}
      {scan.failure_reason && (
        <p class="notice error" role="alert">
          {scan.failure_reason}
        </p>
      )}
      {actionError && <ErrorBox error={actionError} />}
      {results.error && <ErrorBox error={results.error} />}
      {finished && !results.data && !results.error && <Loading what="Loading the results" />}
      {results.data && scan.status === 'completed' && (
        <>
          <Exports path={path} id={scan.scan_id} />
          {results.data.warnings && results.data.warnings.length > 0 && (
            <div class="notice warn">
              <h2>Warnings</h2>
              <ul>
                {results.data.warnings.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
            </div>
          )}
          {scan.mode !== 'functional' && <SecurityResults results={results.data} path={path} />}
          {scan.mode !== 'security' && <FunctionalResults results={results.data} path={path} scanId={scan.scan_id} />}
        </>
      )}
    </article>
  );
}

function Exports({ path, id }: { path: string; id: string }) {
  const [error, setError] = useState<ApiFailure | undefined>();
  const save = (format: string) => {
    setError(undefined);
    download(`${path}/export?format=${format}`, `vigil-${id}.${format}`).catch((e: ApiFailure) => setError(e));
  };
  return (
    <div class="exports" role="group" aria-label="Export the report">
      <span>Export:</span>
      {['html', 'json', 'csv'].map((f) => (
        <button type="button" class="small" key={f} onClick={() => save(f)}>
          {f.toUpperCase()}
        </button>
      ))}
      {error && <ErrorBox error={error} />}
    </div>
  );
}
