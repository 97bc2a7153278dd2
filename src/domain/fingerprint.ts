/**
 * The stable fingerprint of a finding: the same weakness on the same operation gets the same
 * fingerprint in every scan, so suppressions, baselines (`--new-only`) and SARIF's
 * `partialFingerprints` can follow it across runs.
 *
 * It is a hash of the check id, the HTTP method, the path template, the parameter and the finding's
 * title with its numbers blanked (one check finds distinct weaknesses on one operation: a JWT with
 * alg none accepted, an expired JWT accepted), never of anything run-specific (task ids, evidence,
 * timings, counts; concrete ids in the path are the template's placeholders already). A task without
 * a check (functional tasks, older results) is identified by its name ("Visual regression: /cart").
 */
import { createHash } from 'node:crypto';
import type { Task } from './scan.js';

/** The fields of a task the fingerprint reads (a Task has them all). */
export type FingerprintSource = Pick<Task, 'name'> & Partial<Pick<Task, 'check' | 'endpoint' | 'parameter' | 'endpoints'>>;

/** "get https://api.test/users/{id}/?x=1" -> { method: "GET", path: "/users/{id}" }. */
export function operationParts(endpoint: string | undefined | null): { method: string; path: string } {
  const text = (endpoint ?? '').trim();
  const m = /^([A-Za-z]+)\s+(\S.*)$/.exec(text);
  const method = m ? m[1]!.toUpperCase() : '';
  let path = (m ? m[2]! : text).trim();
  path = path.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  path = path.split(/[?#]/, 1)[0]!.replace(/\/{2,}/g, '/');
  if (path.length > 1) path = path.replace(/\/+$/, '');
  return { method, path: path || (m ? '/' : '') };
}

/** "METHOD /path/template" as fingerprints see it (empty for a task without an operation). */
export function operationKey(endpoint: string | undefined | null): string {
  const { method, path } = operationParts(endpoint);
  return method ? `${method} ${path}` : path;
}

/**
 * 32 hex characters; the same for the same check, method, path template, parameter and title. A finding of
 * the whole target (it lists every affected operation in `endpoints`) is the target's: its
 * `endpoint` is only the first of them, which moves when the spec gains an operation.
 */
export function findingFingerprint(task: FingerprintSource): string {
  const wholeTarget = Array.isArray(task.endpoints) && task.endpoints.length > 0;
  const { method, path } = wholeTarget ? { method: '', path: '*' } : operationParts(task.endpoint);
  const title = String(task.name ?? '')
    .toLowerCase()
    .replace(/\d+/g, '#')
    .replace(/\s+/g, ' ')
    .trim();
  const identity = task.check
    ? ['finding/v2', task.check, method, path, task.parameter ?? '', title]
    : ['task/v1', task.name, method, path, task.parameter ?? ''];
  return createHash('sha256').update(identity.join('\u0000')).digest('hex').slice(0, 32);
}
