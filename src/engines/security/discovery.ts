/**
 * Resources before attacks: per identity, the safe operations run first (reads of collections,
 * then creates with valid, recognisable bodies, then reads of items with the ids just found), so
 * every check addresses real resources. Responses are the operations' baselines too.
 */
import type { ScanSession } from './session.js';
import { phaseOf } from './phases.js';
import { isAuthOperation } from './unique-values.js';
import type { Identity, Operation } from './types.js';

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function eachLimited<T>(items: T[], limit: number, signal: AbortSignal, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(Math.max(limit, 1), Math.max(items.length, 1)) }, async () => {
    while (next < items.length) {
      signal.throwIfAborted();
      await fn(items[next++]);
    }
  });
  await Promise.all(workers);
}

export async function discover(session: ScanSession, ops: Operation[], concurrency: number): Promise<void> {
  await session.harvestIdentityClaims();
  const identities: Identity[] = session.hasSecondary ? ['primary', 'secondary'] : ['primary'];
  const reads = ops.filter((op) => phaseOf(op) === 'read' && op.method === 'GET');
  const creates = ops.filter((op) => phaseOf(op) === 'create' && !isAuthOperation(op) && !!op.body);
  const run = (list: Operation[]) =>
    eachLimited(
      list.flatMap((op) => identities.map((identity) => ({ op, identity }))),
      concurrency,
      session.signal,
      async ({ op, identity }) => void (await session.baseline(op, identity)),
    );
  // Level by level: collections and profiles, then creates; then items and nested collections with
  // what was found (/things/{id}, /things/{id}/parts), then creates under them; and so on.
  const depth = (op: Operation) => op.params.filter((p) => p.in === 'path').length;
  const deepest = Math.max(0, ...ops.map(depth));
  for (let d = 0; d <= deepest; d++) {
    // Reads with a required filter (`?author=`) after the others: the filter takes a value they answered.
    const filtered = (op: Operation) => op.params.some((p) => p.in === 'query' && p.required);
    await run(reads.filter((op) => depth(op) === d && !filtered(op)));
    await run(reads.filter((op) => depth(op) === d && filtered(op)));
    await run(creates.filter((op) => depth(op) === d && (d === 0 || !session.invented(op))));
  }
}
