/** One scan: live status while it runs, then its security and functional results. */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, download, pollInterval } from '../api.js';
import { Badge, duration, ErrorBox, Loading, since, useLoad, when } from '../components.js';
import type { LiveSocket } from '../live.js';
import { href } from '../router.js';
import { session } from '../session.js';
import { SecurityResults } from './security.js';
import { FunctionalResults } from './functional.js';
import { NotTestedSummary } from './not-tested.js';
import { CiFacts, ScanChanges } from './changes.js';
import type { ReportFormatId } from '../types.js';

const POLL_MS = 2000;
const FINISHED = new Set(['completed', 'failed', 'cancelled']);

export function ScanPage({ id, live }: { id: string; live: LiveSocket }) {
  const status = useLoad((signal) => api('get', '/scan/{id}', { path: { id }, signal }), [id]);
  const finished = status.data ? FINISHED.has(status.data.status) : false;
  const results = useLoad((signal) => (finished ? api('get', '/scan/{id}/results', { path: { id }, signal }) : Promise.resolve(undefined)), [id, finished]);
  const [actionError, setActionError] = useState<ApiFailure | undefined>();

  // Finished: announced on the socket. Until then, polled (progress_percent has no event of its own).
  useEffect(() => live.on((message) => message.scan_id === id && status.reload()), [live, id, status.reload]);
  useEffect(() => {
    if (!status.data || finished) return;
    const timer = setInterval(status.reload, pollInterval(POLL_MS));
    return () => clearInterval(timer);
  }, [status.data?.status, finished, status.reload]);

  // An id the API cannot even take (422: too long, say) names no scan either: "not found" as well.
  if (status.error)
    return <ErrorBox error={status.error.status === 422 ? new ApiFailure(404, 'NOT_FOUND', status.error.message) : status.error} what={`Scan ${id}`} />;
  if (!status.data) return <Loading what="Loading the scan" />;
  const scan = status.data;

  const cancel = async () => {
    setActionError(undefined);
    try {
      await api('post', '/scan/{id}/cancel', { path: { id } });
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
        {!finished && session.can('operate') && (
          <button type="button" onClick={() => void cancel()}>
            Cancel scan
          </button>
        )}
      </div>
      {/* What was not tested leads, before the counts that could be read as a clean scan. */}
      {results.data && <NotTestedSummary summary={results.data.not_tested} />}
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <Badge kind={scan.status}>
              <span data-testid="scan-status">{scan.status}</span>
            </Badge>
          </dd>
        </div>
        <CiFacts ci={scan.ci} />
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
          <Exports id={id} filenameId={scan.scan_id} completed={scan.status === 'completed'} />
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
          <ScanChanges id={id} url={scan.url} branch={scan.ci?.branch} onTriaged={results.reload} />
          {scan.mode !== 'functional' && <SecurityResults results={results.data} id={id} onTriaged={results.reload} />}
          {scan.mode !== 'security' && <FunctionalResults results={results.data} id={id} scanId={scan.scan_id} />}
        </>
      )}
    </article>
  );
}

/** The report formats of the server's registry (GET /scan/{id}/reports/{format}), with their file extensions. */
const REPORTS: ReadonlyArray<{ id: ReportFormatId; extension: string; label: string }> = [
  { id: 'html', extension: 'html', label: 'HTML' },
  { id: 'json', extension: 'json', label: 'JSON' },
  { id: 'csv', extension: 'csv', label: 'CSV' },
  { id: 'sarif', extension: 'sarif', label: 'SARIF' },
  { id: 'junit', extension: 'xml', label: 'JUnit' },
];

function Exports({ id, filenameId, completed }: { id: string; filenameId: string; completed: boolean }) {
  const [error, setError] = useState<ApiFailure | undefined>();
  const save = (format: (typeof REPORTS)[number]) => {
    setError(undefined);
    download('/scan/{id}/reports/{format}', { path: { id, format: format.id } }, `vigil-${filenameId}.${format.extension}`).catch((e: ApiFailure) =>
      setError(e),
    );
  };
  return (
    <div class="exports" role="group" aria-label="Export the report">
      <span>Export:</span>
      {/* A SARIF of a scan that did not complete would read as "no findings" in code scanning: not offered. */}
      {REPORTS.filter((f) => completed || f.id !== 'sarif').map((f) => (
        <button type="button" class="small" key={f.id} onClick={() => save(f)}>
          {f.label}
        </button>
      ))}
      {error && <ErrorBox error={error} />}
    </div>
  );
}
