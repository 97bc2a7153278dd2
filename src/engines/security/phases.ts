/**
 * The order that keeps the target alive: reads, then creates, then updates, then deletes, and
 * operations that look destructive or global (reset, init, seed, purge, flush, drop, recreate,
 * DELETE on a collection) last. `options.safe_mode` skips the destructive ones entirely.
 */
import type { Operation, OperationPhase } from './types.js';

export const PHASES: OperationPhase[] = ['read', 'create', 'update', 'delete', 'destructive'];

/** Words that make an operation destructive or global, with their inflections (resets, seeding, dropped). */
const DESTRUCTIVE_WORD =
  /^(reset|reinit|init|initiali[sz]e|seed|purge|flush|drop|recreate|wipe|truncate|nuke|reseed|rebuild|factoryreset|createdb|resetdb|initdb|dropdb|seeddb|cleardb|deleteall|removeall|clearall|destroyall)(s|es|ed|d|ing)?$/;
/** A reset of one's own password, PIN or session is not a reset of the target. */
const PERSONAL = /^(password|passwords|passwd|pin|otp|mfa|2fa|token|tokens|session|sessions|email|credentials|secret)$/;

/** Splits a path, operationId or summary into lower-case words (camelCase, snake_case, kebab-case). */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** True when the operation looks destructive or global (not a reset of a personal credential). */
export function isDestructive(op: Operation): boolean {
  const literal = op.path.replace(/\{[^}]*\}/g, ' ');
  const all = [...words(literal), ...words(op.operationId ?? ''), ...words(op.summary ?? '')];
  // Joined neighbours catch "create db", "reset database" spelt as one identifier elsewhere.
  const joined = all.map((w, i) => (i + 1 < all.length ? w + all[i + 1] : w));
  const hit = [...all, ...joined].some((w) => DESTRUCTIVE_WORD.test(w.replace(/database$/, 'db')));
  if (hit && !all.some((w) => PERSONAL.test(w))) return true;
  // DELETE on a collection: the path does not end with a parameter.
  if (op.method === 'DELETE' && !/\}\/?$/.test(op.path)) return true;
  return false;
}

/** Phases already judged (phaseOf is asked for every request): again only if what it reads changed. */
const phases = new WeakMap<Operation, { path: string; method: string; operationId?: string; summary?: string; phase: OperationPhase }>();

export function phaseOf(op: Operation): OperationPhase {
  const known = phases.get(op);
  if (known && known.path === op.path && known.method === op.method && known.operationId === op.operationId && known.summary === op.summary) return known.phase;
  const phase = judgePhase(op);
  phases.set(op, { path: op.path, method: op.method, operationId: op.operationId, summary: op.summary, phase });
  return phase;
}

function judgePhase(op: Operation): OperationPhase {
  if (isDestructive(op)) return 'destructive';
  switch (op.method) {
    case 'GET':
    case 'HEAD':
    case 'OPTIONS':
    case 'TRACE':
      return 'read';
    case 'POST':
      return 'create';
    case 'PUT':
    case 'PATCH':
      return 'update';
    case 'DELETE':
      return 'delete';
    default:
      return 'update';
  }
}
