/** The scan's own resources are deleted at the end, by their owner (logged in again if needed), where a delete operation exists. */
import type { ScanSession } from './session.js';
import { keysForParam, normKey } from './resources.js';
import type { CreatedResource, Operation } from './types.js';

/** `Location: /api/books/42` of a create on `/books` (a 201 with no body): `42`. */
function idFromLocation(location: string | undefined, collection: string): string | undefined {
  if (!location) return undefined;
  let path: string;
  try {
    path = new URL(location, 'http://location.invalid/').pathname.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
  const i = path.lastIndexOf('/');
  if (i <= 0 || !path.slice(0, i).endsWith(collection)) return undefined;
  return decodeURIComponent(path.slice(i + 1)) || undefined;
}

/** `DELETE /books/{id}` for a resource created by `POST /books` (trailing slashes aside). */
function deleteOperationFor(resource: CreatedResource, ops: Operation[]): { op: Operation; path: Record<string, string> } | undefined {
  const base = resource.op.path.replace(/\/+$/, '');
  for (const op of ops) {
    if (op.method !== 'DELETE') continue;
    const m = /^(.*)\/\{([^}]+)\}\/?$/.exec(op.path);
    if (!m || m[1] !== base) continue;
    // The item's own parameter from what the create sent or answered; parent parameters from the create's path.
    const value =
      keysForParam(op, m[2])
        .map(normKey)
        .map((k) => resource.values[k])
        .find((v) => v !== undefined) ??
      resource.id ??
      idFromLocation(resource.path, base);
    // A nested child is deleted under the parent it was created in (its current identifier: session.request follows moves).
    if (value !== undefined) return { op, path: { ...resource.parent, [m[2]]: String(value) } };
  }
  return undefined;
}

/**
 * How long a delete that got no answer is tried again (1 s, 2 s, 4 s... apart): a target still working
 * through the scan's earlier writes (a large body written to every record of a bulk update, queued
 * behind a single-writer store) answers reads but not yet writes, and its user gets their data back
 * only if the scan waits for it.
 */
export const CLEANUP_PATIENCE_MS = 60_000;

/** Deletes what the scan created and is not gone yet; returns how many are gone (deleted now or before). */
export async function cleanUp(session: ScanSession, ops: Operation[], patienceMs = CLEANUP_PATIENCE_MS): Promise<number> {
  let gone = 0;
  // Each owner that logs in is logged in again if it was lost or its credential is refused now.
  for (const identity of new Set(session.createdResources.filter((r) => !r.deleted).map((r) => r.identity))) await session.readyForCleanUp(identity);
  for (const resource of session.createdResources) {
    if (resource.deleted) {
      gone++;
      continue;
    }
    const target = deleteOperationFor(resource, ops);
    if (!target) continue;
    const remove = () => session.send({ ...session.request(target.op, { path: target.path }, resource.identity), identity: resource.identity });
    let res = await remove();
    const started = Date.now();
    for (let wait = 1000; res.status === 0 && res.error !== 'withheld' && Date.now() - started + wait < patienceMs && !session.signal.aborted; wait *= 2) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      res = await remove();
    }
    if ((res.status === 401 || res.status === 403) && session.logsIn(resource.identity)) {
      // Its session may have ended meanwhile: logged in again (if needed), the delete is tried once more.
      await session.readyForCleanUp(resource.identity);
      res = await remove();
    }
    if ((res.status >= 200 && res.status < 300) || res.status === 404 || res.status === 410) {
      resource.deleted = true;
      gone++;
    }
  }
  return gone;
}
