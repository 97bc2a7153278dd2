/**
 * Members (admin): the people provisioned by single sign-on, their roles, and removing them (their
 * sessions end at once). A non-admin who opens the page sees the server's 403 in the error shape.
 */
import { useState } from 'preact/hooks';
import { api, ApiFailure } from '../api.js';
import { ErrorBox, Loading, Pager, useLoad, when } from '../components.js';
import { session } from '../session.js';

const ROLES = ['admin', 'member', 'viewer'] as const;
type Role = (typeof ROLES)[number];

export function MembersPage() {
  const [page, setPage] = useState(1);
  const [actionError, setActionError] = useState<ApiFailure | undefined>();
  const list = useLoad((signal) => api('get', '/members', { query: { page, per_page: 20 }, signal }), [page]);
  const self = session.cookie()?.email;

  const act = async (change: () => Promise<unknown>) => {
    setActionError(undefined);
    try {
      await change();
      list.reload();
    } catch (error) {
      setActionError(error as ApiFailure);
    }
  };
  const changeRole = (id: string, role: Role) => act(() => api('patch', '/members/{id}', { path: { id }, json: { role } }));
  const remove = (id: string, email: string | null) => {
    if (
      !window.confirm(
        `Remove ${email ?? id}? Their sessions end now; signing in again through your identity provider brings them back with the mapped or default role.`,
      )
    )
      return;
    void act(() => api('delete', '/members/{id}', { path: { id } }));
  };

  return (
    <section aria-labelledby="members-title">
      <h1 id="members-title">Members</h1>
      <p class="muted">
        People who signed in through your identity provider. Roles: admin (everything), member (scans, baselines, suppressions), viewer (read only).
      </p>
      {actionError && <ErrorBox error={actionError} />}
      {list.error && <ErrorBox error={list.error} what="The member list" />}
      {list.loading && !list.data && <Loading what="Loading the members" />}
      {list.data && list.data.members.length === 0 && <p class="empty">No one has signed in through single sign-on yet.</p>}
      {list.data && list.data.members.length > 0 && (
        <div class="table-wrap">
          <table class="members">
            <caption class="sr-only">Members of the tenant</caption>
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Role</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.members.map((m) => (
                <tr key={m.member_id}>
                  <td>
                    {m.name ?? m.email ?? m.member_id}
                    <div class="muted small">{m.email}</div>
                  </td>
                  <td>
                    <label class="sr-only" for={`role-${m.member_id}`}>
                      Role of {m.email ?? m.member_id}
                    </label>
                    <select
                      id={`role-${m.member_id}`}
                      value={m.role}
                      onChange={(e) => void changeRole(m.member_id, (e.target as HTMLSelectElement).value as Role)}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>{m.last_sign_in_at ? when(m.last_sign_in_at) : 'never'}</td>
                  <td>
                    <button
                      type="button"
                      class="small"
                      disabled={m.email !== null && m.email === self}
                      title={m.email === self ? 'You cannot remove yourself here' : undefined}
                      onClick={() => remove(m.member_id, m.email)}
                    >
                      Remove<span class="sr-only"> {m.email ?? m.member_id}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && <Pager page={page} totalPages={list.data.total_pages} onPage={setPage} />}
    </section>
  );
}
