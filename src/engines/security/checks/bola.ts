/** API1:2023 Broken object level authorization: the second identity reading or changing the first one's objects. */
import type { CheckDefinition } from '../types.js';
import { buildRequest } from '../synth.js';
import { fail, ok, pass } from './util.js';

/** Token-set similarity of two bodies, 0..1. */
export function similarity(a: string, b: string): number {
  const ta = new Set(a.toLowerCase().match(/[a-z0-9_@.-]{2,}/g) ?? []);
  const tb = new Set(b.toLowerCase().match(/[a-z0-9_@.-]{2,}/g) ?? []);
  if (!ta.size && !tb.size) return a === b ? 1 : 0;
  let inter = 0;
  for (const t of ta) if (tb.has(t)) inter++;
  return inter / (ta.size + tb.size - inter);
}

export const bola: CheckDefinition = {
  id: 'bola',
  title: 'Broken object level authorization',
  owasp: 'API1:2023',
  cwe: 'CWE-639',
  scope: 'operation',
  applies: (op, scan) => scan.hasSecondary && op.params.some((p) => p.in === 'path') && ['GET', 'PUT', 'PATCH', 'DELETE'].includes(op.method),
  async run(scan, op) {
    const name = `Object of one identity ${op!.method === 'GET' ? 'readable' : 'changeable'} by another`;
    const req = buildRequest(op!);
    const owner = await scan.send({ ...req, identity: 'primary' });
    if (!ok(owner) || !owner.body.trim()) return [pass(name)];
    const other = await scan.send({ ...req, identity: 'secondary' });
    const sim = similarity(owner.body, other.body);
    // Judged by body similarity, not status alone: a 200 with an empty or different object is not a leak.
    if (ok(other) && (op!.method !== 'GET' || sim >= 0.8)) {
      return [fail(name, op!.method === 'GET' ? 'high' : 'critical', scan.evidence(other, `The second identity got HTTP ${other.status} with a body ${Math.round(sim * 100)}% similar to the owner's`))];
    }
    return [pass(name)];
  },
};
