/** The audit log (admin): who did what, when, from where; most recent first, paged, filtered by action, actor and dates. */
import { api } from '../api.js';
import { ErrorBox, Loading, Pager, useLoad, when } from '../components.js';
import { navigate } from '../router.js';

const ACTIONS = [
  'scan.started',
  'scan.cancelled',
  'baseline.approved',
  'baseline.deleted',
  'key.rotated',
  'sso.configured',
  'sso.removed',
  'member.provisioned',
  'member.role_changed',
  'member.removed',
  'session.signed_in',
  'session.signed_out',
  'plan.changed',
];

/** A date input's day as the start (from) or the end (to) of that day, in the viewer's time zone. */
function dayBound(day: string, end: boolean): string | undefined {
  if (!day) return undefined;
  const date = new Date(`${day}T${end ? '23:59:59.999' : '00:00:00'}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export function AuditPage({ params }: { params: URLSearchParams }) {
  const page = Math.max(1, Number(params.get('page')) || 1);
  const action = params.get('action') ?? '';
  const actor = params.get('actor') ?? '';
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  const log = useLoad(
    (signal) =>
      api('get', '/audit-log', {
        query: { page, per_page: 25, action: action || undefined, actor: actor || undefined, from: dayBound(from, false), to: dayBound(to, true) },
        signal,
      }),
    [page, action, actor, from, to],
  );
  const go = (changes: Record<string, string | number>) => {
    const next = new URLSearchParams(params);
    for (const [name, value] of Object.entries(changes)) {
      if (value === '' || value === 1) next.delete(name);
      else next.set(name, String(value));
    }
    if (!('page' in changes)) next.delete('page');
    const text = next.toString();
    navigate(`/audit-log${text ? `?${text}` : ''}`);
  };

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget as HTMLFormElement);
          go({
            action: String(form.get('action') ?? ''),
            actor: String(form.get('actor') ?? '').trim(),
            from: String(form.get('from') ?? ''),
            to: String(form.get('to') ?? ''),
          });
        }}
      >
        <label>
          Action
          <select name="action" value={action}>
            <option value="">(any)</option>
            {ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label>
          Who
          <input name="actor" type="text" placeholder="email or key prefix" value={actor} />
        </label>
        <label>
          From
          <input name="from" type="date" value={from} />
        </label>
        <label>
          To
          <input name="to" type="date" value={to} />
        </label>
        <button type="submit">Filter</button>
      </form>
      {log.error && <ErrorBox error={log.error} what="The audit log" />}
      {log.loading && !log.data && <Loading what="Loading the audit log" />}
      {log.data && log.data.entries.length === 0 && <p class="empty">No entries{action || actor || from || to ? ' match these filters' : ''}.</p>}
      {log.data && log.data.entries.length > 0 && (
        <div class="table-wrap">
          <table class="audit">
            <caption class="sr-only">Audit log entries, most recent first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">On</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {log.data.entries.map((e) => (
                <tr key={e.entry_id}>
                  <td>{when(e.at)}</td>
                  <td>
                    {e.actor}
                    <div class="muted small">{e.actor_type === 'api_key' ? 'API key' : 'member'}</div>
                  </td>
                  <td>
                    <code>{e.action}</code>
                    {e.detail && (
                      <div class="muted small">
                        {Object.entries(e.detail)
                          .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
                          .join(', ')}
                      </div>
                    )}
                  </td>
                  <td>{e.target ?? ''}</td>
                  <td>{e.address ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {log.data && <Pager page={page} totalPages={log.data.total_pages} onPage={(p) => go({ page: p })} />}
    </section>
  );
}
