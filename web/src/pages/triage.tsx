/**
 * Triage: suppress and un-suppress one finding (a security finding, an accessibility violation, a visual
 * diff: anything the API gives a `fingerprint` and a `suppressed` mark), and the tenant's suppressions page.
 */
import { useState } from 'preact/hooks';
import { api, ApiFailure } from '../api.js';
import { ErrorBox, Loading, Pager, useLoad, when } from '../components.js';
import { session } from '../session.js';
import type { Task } from '../types.js';

/** What triage needs of a finding: its fingerprint and, when suppressed, the mark (the same fields on tasks, violations and diffs). */
export type Triageable = Pick<Task, 'fingerprint' | 'suppressed'>;

/** "YYYY-MM-DD" from a date input: the suppression holds through that day (UTC). */
function endOfDay(date: string): string {
  return `${date}T23:59:59.999Z`;
}

/** The Suppress / Un-suppress action of one finding; `onChange` reloads the results once it is done. */
export function TriageAction({ finding, onChange }: { finding: Triageable; onChange: () => void }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [until, setUntil] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiFailure | undefined>();
  if (!finding.fingerprint) return null;
  const fingerprint = finding.fingerprint;

  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      setOpen(false);
      onChange();
    } catch (failure) {
      setError(failure as ApiFailure);
    } finally {
      setBusy(false);
    }
  };
  // The results carry the triage, not the suppression's id: every active suppression of this fingerprint is removed.
  const unsuppress = () =>
    run(async () => {
      for (let page = 1; ; page++) {
        const list = await api('get', '/suppressions', { query: { page, per_page: 100 } });
        for (const s of list.suppressions.filter((x) => x.fingerprint === fingerprint && x.active))
          await api('delete', '/suppressions/{id}', { path: { id: s.suppression_id } });
        if (page >= list.total_pages) break;
      }
    });
  const suppress = (event: Event) => {
    event.preventDefault();
    void run(() => api('post', '/suppressions', { json: { fingerprint, reason: reason.trim(), ...(until ? { expires_at: endOfDay(until) } : {}) } }));
  };

  if (finding.suppressed) {
    const s = finding.suppressed;
    return (
      <div class="triage suppressed">
        <strong>Suppressed</strong>: {s.reason}
        <span class="muted">
          {s.author ? ` · by ${s.author}` : ''}
          {s.expires_at ? ` · until ${when(s.expires_at)}` : ''}
          {s.source === 'file' ? ' · .vigil/ignore.yml' : ''}
        </span>{' '}
        {s.source === 'server' && session.can('operate') && (
          <button type="button" disabled={busy} onClick={() => void unsuppress()}>
            Un-suppress
          </button>
        )}
        {error && <ErrorBox error={error} />}
      </div>
    );
  }
  // A viewer sees what is suppressed, and no control to change it.
  if (!session.can('operate')) return null;
  if (!open) {
    return (
      <div class="triage">
        <button type="button" onClick={() => setOpen(true)}>
          Suppress
        </button>
      </div>
    );
  }
  return (
    <form class="triage" onSubmit={suppress}>
      <label>
        Reason{' '}
        <input
          required
          maxLength={500}
          value={reason}
          onInput={(e) => setReason((e.target as HTMLInputElement).value)}
          placeholder="Why is this finding accepted?"
        />
      </label>{' '}
      <label>
        Until (optional) <input type="date" value={until} onInput={(e) => setUntil((e.target as HTMLInputElement).value)} />
      </label>{' '}
      <button type="submit" disabled={busy || !reason.trim()}>
        Suppress
      </button>{' '}
      <button type="button" onClick={() => setOpen(false)}>
        Cancel
      </button>
      {error && <ErrorBox error={error} />}
    </form>
  );
}

/** The tenant's suppressions, newest first, each with Un-suppress. */
export function SuppressionsPage() {
  const [page, setPage] = useState(1);
  const list = useLoad((signal) => api('get', '/suppressions', { query: { page, per_page: 20 }, signal }), [page]);
  const [error, setError] = useState<ApiFailure | undefined>();
  const remove = async (id: string) => {
    setError(undefined);
    try {
      await api('delete', '/suppressions/{id}', { path: { id } });
      list.reload();
    } catch (failure) {
      setError(failure as ApiFailure);
    }
  };
  return (
    <section aria-labelledby="suppressions-title">
      <h1 id="suppressions-title">Suppressions</h1>
      <p class="muted">
        Findings your team accepted. They are shown as suppressed in every report and never fail a CI gate, whatever its threshold, until removed or expired.
      </p>
      {error && <ErrorBox error={error} />}
      {list.error && <ErrorBox error={list.error} what="Suppressions" />}
      {!list.data && !list.error && <Loading what="Loading the suppressions" />}
      {list.data && list.data.total === 0 && (
        <p class="empty">No suppressions yet: suppress a finding from a scan's security findings, accessibility violations or visual diffs.</p>
      )}
      {list.data && list.data.total > 0 && (
        <>
          <table class="list">
            <thead>
              <tr>
                <th>Fingerprint</th>
                <th>Reason</th>
                <th>Target</th>
                <th>By</th>
                <th>Created</th>
                <th>Until</th>
                {session.can('operate') && <th />}
              </tr>
            </thead>
            <tbody>
              {list.data.suppressions.map((s) => (
                <tr key={s.suppression_id} class={s.active ? '' : 'muted'}>
                  <td>
                    <code title={s.fingerprint}>{s.fingerprint.slice(0, 12)}</code>
                  </td>
                  <td>{s.reason}</td>
                  <td>{s.target ?? 'every target'}</td>
                  <td>{s.author}</td>
                  <td>{when(s.created_at)}</td>
                  <td>{s.expires_at ? `${when(s.expires_at)}${s.active ? '' : ' (expired)'}` : '—'}</td>
                  {session.can('operate') && (
                    <td>
                      <button type="button" onClick={() => void remove(s.suppression_id)}>
                        Un-suppress
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} totalPages={list.data.total_pages} onPage={setPage} />
        </>
      )}
    </section>
  );
}
