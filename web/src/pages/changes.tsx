/**
 * A scan's CI metadata (repository, branch, commit, pull request, run) as facts, and what changed since
 * the previous scan of its target and branch (GET /scan/{id}/changes): new, fixed and still-open
 * findings, each with the Suppress / Un-suppress action of triage.tsx.
 */
import { api } from '../api.js';
import { Badge, ErrorBox, Loading, useLoad, when } from '../components.js';
import { href } from '../router.js';
import { commitUrl, pullRequestUrl } from '../../../src/domain/ci.js';
import type { ResponseBody } from '../../../src/api-client/calls.js';
import { TriageAction } from './triage.js';

type Ci = NonNullable<ResponseBody<'get', '/scan/{id}'>['ci']>;
type Changes = ResponseBody<'get', '/scan/{id}/changes'>;
type Finding = Changes['new'][number];

const link = (url: string | undefined, text: string) =>
  url ? (
    <a href={url} rel="noreferrer" target="_blank">
      {text}
    </a>
  ) : (
    text
  );

/** The facts a scan started from CI adds to the scan page's list (nothing without CI metadata). */
export function CiFacts({ ci }: { ci: Ci | undefined }) {
  if (!ci) return null;
  const pr = ci.pr ? `${ci.provider === 'gitlab' ? '!' : '#'}${ci.pr.replace(/^[#!]/, '')}` : undefined;
  return (
    <>
      {ci.repository && (
        <div>
          <dt>Repository</dt>
          <dd>{link(ci.repository_url, ci.repository)}</dd>
        </div>
      )}
      {ci.branch && (
        <div>
          <dt>Branch</dt>
          <dd data-testid="ci-branch">
            <code>{ci.branch}</code>
            {ci.base_branch && <span class="muted"> into {ci.base_branch}</span>}
          </dd>
        </div>
      )}
      {ci.commit && (
        <div>
          <dt>Commit</dt>
          <dd data-testid="ci-commit">
            <code title={ci.commit}>{link(commitUrl(ci), ci.commit.slice(0, 7))}</code>
          </dd>
        </div>
      )}
      {pr && (
        <div>
          <dt>{ci.provider === 'gitlab' ? 'Merge request' : 'Pull request'}</dt>
          <dd data-testid="ci-pr">{link(pullRequestUrl(ci), pr)}</dd>
        </div>
      )}
      {ci.run_url && (
        <div>
          <dt>CI run</dt>
          <dd>{link(ci.run_url, 'Open the run')}</dd>
        </div>
      )}
    </>
  );
}

const BASIS: Record<NonNullable<Changes['previous']>['basis'], string> = {
  same_branch: 'the previous scan on this branch',
  base_branch: 'the latest scan of the base branch',
  target: 'the latest scan of this target',
};

/** `fixed`: findings gone from this scan offer only Un-suppress (a suppression left behind), never Suppress. */
function FindingList({
  title,
  testId,
  findings,
  empty,
  onTriaged,
  fixed = false,
}: {
  title: string;
  testId: string;
  findings: Finding[];
  empty: string;
  onTriaged: () => void;
  fixed?: boolean;
}) {
  return (
    <div class="changes-list" data-testid={testId}>
      <h3>
        {title} ({findings.length})
      </h3>
      {findings.length === 0 ? (
        <p class="muted">{empty}</p>
      ) : (
        <ul>
          {findings.map((f) => (
            <li key={f.fingerprint}>
              {f.severity && <Badge kind={f.severity}>{f.severity}</Badge>} <strong>{f.name}</strong>
              {f.endpoint && <code> {f.endpoint}</code>}{' '}
              <code class="muted" title={f.fingerprint}>
                {f.fingerprint.slice(0, 12)}
              </code>
              {(!fixed || f.suppressed) && <TriageAction finding={f} onChange={onTriaged} />}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** New, fixed and still-open findings since the previous completed scan of the target and branch. */
export function ScanChanges({ id, url, branch, onTriaged }: { id: string; url: string; branch: string | undefined; onTriaged: () => void }) {
  const changes = useLoad((signal) => api('get', '/scan/{id}/changes', { path: { id }, signal }), [id]);
  const reload = () => {
    changes.reload();
    onTriaged();
  };
  const history = `/scans?target=${encodeURIComponent(url)}${branch ? `&branch=${encodeURIComponent(branch)}` : ''}`;
  return (
    <section class="changes" aria-labelledby="changes-title">
      <h2 id="changes-title">Since the previous scan</h2>
      {changes.error && <ErrorBox error={changes.error} what="Changes" />}
      {!changes.data && !changes.error && <Loading what="Comparing with the previous scan" />}
      {changes.data && (
        <>
          <p class="muted" data-testid="changes-previous">
            {changes.data.previous ? (
              <>
                Compared with {BASIS[changes.data.previous.basis]}:{' '}
                <a href={href(`/scans/${changes.data.previous.scan_id}`)}>{changes.data.previous.scan_id}</a>
                {changes.data.previous.branch && (
                  <>
                    {' '}
                    on <code>{changes.data.previous.branch}</code>
                  </>
                )}
                {changes.data.previous.commit && (
                  <>
                    {' '}
                    at <code>{changes.data.previous.commit.slice(0, 7)}</code>
                  </>
                )}
                {changes.data.previous.completed_at && <> ({when(changes.data.previous.completed_at)})</>}.
              </>
            ) : (
              'The first completed scan of this target: every finding is new.'
            )}{' '}
            <a href={href(history)}>All scans of this target{branch ? ' on this branch' : ''}</a>
          </p>
          <div class="changes-grid">
            <FindingList title="New" testId="changes-new" findings={changes.data.new} empty="No new findings." onTriaged={reload} />
            <FindingList title="Fixed" testId="changes-fixed" findings={changes.data.fixed} empty="Nothing fixed." onTriaged={reload} fixed />
            <FindingList title="Still open" testId="changes-open" findings={changes.data.still_open} empty="Nothing still open." onTriaged={reload} />
          </div>
        </>
      )}
    </section>
  );
}
