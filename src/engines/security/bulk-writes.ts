import type { NotRunReason } from '../../domain/scan.js';
import type { CheckContext, CreatedResource, Identity, Operation } from './types.js';

/**
 * A write to a whole collection (`PATCH /todos` beside `/todos/{id}`, or a `DELETE /todos` the spec
 * does not declare, sent by the methods probe): without a filter it changes or removes every record,
 * the user's own included. Such a write is sent only with a filter that names one record the scan
 * created (LoopBack's `where`), and withheld otherwise. A declared `DELETE` of a collection is a
 * destructive operation instead: last, and never in safe mode (phases.ts).
 */
export function bulkWrite(ctx: Pick<CheckContext, 'model'>, op: Pick<Operation, 'method' | 'path' | 'params'>): boolean {
  if (!['PATCH', 'PUT', 'DELETE'].includes(op.method) || op.params.some((p) => p.in === 'path')) return false;
  const operations = ctx.model.operations;
  if (op.method === 'DELETE' && operations.some((o) => o.method === 'DELETE' && o.path === op.path)) return false;
  const base = op.path.replace(/\/$/, '');
  return operations.some((o) => o.path.startsWith(`${base}/{`));
}

/** The query parameter that filters a bulk write, where the operation declares one (LoopBack's `where`, a JSON object). */
const FILTER_PARAM = 'where';

export const BULK_WRITE_REASON: NotRunReason = {
  code: 'prerequisite_missing',
  text: 'a write to a whole collection (no id in the path) and no filter that limits it to a record the scan created: it would change every record',
};

/** The filters that limit a bulk write to one record the scan created in that collection, the identity's own first. */
export function bulkFilters(op: Operation, created: readonly CreatedResource[], identity: Identity): [string, string][] {
  if (!op.params.some((p) => p.in === 'query' && p.name === FILTER_PARAM)) return [];
  const collection = op.path.replace(/\/$/, '');
  const mine = created.filter((c) => !c.deleted && c.id !== undefined && c.op.path.replace(/\/$/, '') === collection);
  mine.sort((a, b) => Number(b.identity === identity) - Number(a.identity === identity));
  return mine.map((c) => [FILTER_PARAM, JSON.stringify({ id: c.id })]);
}

/** Whether a bulk write's query carries one of the filters that limit it to a record the scan created. */
export function filteredToOwnRecord(query: readonly [string, string][], filters: readonly [string, string][]): boolean {
  return query.some(([k, v]) => filters.some(([fk, fv]) => k === fk && v === fv));
}
