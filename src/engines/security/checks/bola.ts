/**
 * API1:2023 Broken object level authorization: a resource the first identity owns (created by
 * the scan, its own account, or one only it sees) read, changed and deleted by the second.
 * Writes count when they succeed for the other identity as for the owner (204 included) and,
 * where observable, take effect: the owner re-reads the resource and it changed, a changed
 * password logs in, a deleted resource is gone.
 */
import type { CheckContext, CheckOutcome, OperationCheck, Operation, TargetResponse } from '../types.js';
import {
  NO_SECOND_IDENTITY,
  bodyObject,
  isPasswordField,
  isSelfPath,
  loginOperation,
  provenLogin,
  ok,
  otherPassword,
  ownedPath,
  ownUsername,
  readBack,
  readOperationFor,
  requiresAuth,
  sameContent,
  similarity,
} from './authz.js';
import { markedBody } from '../unique-values.js';
import { fail, pass } from './util.js';
import { privilegeReason } from './bfla.js';
import { bodyIdCase, bodyUserRef } from './verb-authz.js';

export { similarity };

const WRITES = new Set(['PUT', 'PATCH', 'DELETE']);

async function readCase(ctx: CheckContext, op: Operation, path: Record<string, string>): Promise<CheckOutcome> {
  const name = 'Object of one identity readable by another';
  const req = ctx.request(op, { path }, 'primary');
  const owner = await ctx.send({ ...req, identity: 'primary' });
  if (!ok(owner) || !owner.body.trim())
    return { code: 'prerequisite_missing', notTested: `the first identity could not read its own resource (HTTP ${owner.status || owner.error})` };
  if (!(await requiresAuth(ctx, op, req))) return { code: 'prerequisite_missing', notTested: 'answers without credentials (public)' };
  // Shared content (an article, a public profile): a secured read that answers the anonymous request
  // the same (personalisation fields apart), or an object its collection lists to the other identity.
  if (op.secured && sameContent(owner, await ctx.send({ ...req, identity: 'none', headers: { ...req.headers } })))
    return { code: 'prerequisite_missing', notTested: 'answers without credentials (public)' };
  if (await listedToOther(ctx, op, path, owner)) return { code: 'prerequisite_missing', notTested: 'only resources both identities can see were found' };
  const other = await ctx.send({ ...req, identity: 'secondary' });
  const sim = similarity(owner.body, other.body);
  // Judged by the body, not the status alone: a 200 with an empty or different object is not a leak.
  if (ok(other) && sim >= 0.8) {
    return [
      fail(
        name,
        'high',
        ctx.evidence(
          other,
          `The second identity read the first identity's object (HTTP ${other.status}, body ${Math.round(sim * 100)}% the same as the owner's): ${ctx.excerpt(other, 200)}`,
        ),
      ),
    ];
  }
  return [pass(name)];
}

/**
 * True when the collection the object belongs to (`GET /posts` for `GET /posts/{slug}`) lists it to
 * the second identity with the content the owner reads (an entry at least 80% similar to the
 * owner's answer): it is everyone's to see. A list that names the object but not what its read
 * shows (titles listed, each book's secret only in its own read) does not make it shared.
 */
async function listedToOther(ctx: CheckContext, op: Operation, path: Record<string, string>, owner: TargetResponse): Promise<boolean> {
  const last = /\/\{([^}]+)\}\/?$/.exec(op.path);
  const value = last ? path[last[1]] : undefined;
  if (!last || value === undefined) return false;
  const parent = op.path.slice(0, last.index);
  const list = ctx.model.operations.find((o) => o.method === 'GET' && o.path === parent);
  if (!list) return false;
  const res = await ctx.send({ ...ctx.request(list, { path }, 'secondary'), identity: 'secondary' });
  if (!ok(res)) return false;
  let shared = false;
  const walk = (node: unknown, depth: number) => {
    if (shared || depth > 6 || node === null || typeof node !== 'object') return;
    const values = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    if (
      !Array.isArray(node) &&
      values.some((v) => (typeof v === 'string' || typeof v === 'number') && String(v) === value) &&
      similarity(JSON.stringify(node), owner.body) >= 0.8
    )
      shared = true;
    for (const v of values) walk(v, depth + 1);
  };
  walk(ctx.json(res), 0);
  return shared;
}

/** Body the second identity writes: every free-text field tagged as its own, a password distinct from the owner's. */
function otherWrite(ctx: CheckContext, op: Operation, path: Record<string, string>) {
  const req = ctx.request(op, { path }, 'primary');
  const plain = bodyObject(req);
  if (!plain) return { req, body: plain };
  const body = markedBody(plain, op.body?.schema, `${ctx.marker}-other`) as Record<string, unknown>;
  for (const k of Object.keys(body)) if (isPasswordField(k) && typeof body[k] === 'string') body[k] = otherPassword(ctx);
  return { req: ctx.request(op, { path, body }, 'primary'), body };
}

/** Values the other identity wrote that the owner's read-back shows (what proves the write took effect). */
function changedFields(written: Record<string, unknown> | undefined, readJson: unknown): string[] {
  if (!written || !readJson || typeof readJson !== 'object') return [];
  const text = JSON.stringify(readJson);
  return Object.entries(written)
    .filter(([k, v]) => typeof v === 'string' && v.length >= 6 && !isPasswordField(k) && text.includes(JSON.stringify(v).slice(1, -1)))
    .map(([k]) => k);
}

async function writeCase(ctx: CheckContext, op: Operation): Promise<CheckOutcome> {
  const isDelete = op.method === 'DELETE';
  const name = isDelete ? 'Object of one identity deletable by another' : 'Object of one identity changeable by another';
  // A delete only ever removes what the scan created.
  const path = ownedPath(ctx, op, { created: isDelete }) ?? (isDelete ? undefined : ownedPath(ctx, op));
  if (!path)
    return {
      code: 'prerequisite_missing',
      notTested: isDelete ? 'no resource the scan created as the first identity' : 'no resource of the first identity found',
    };
  const read = readOperationFor(ctx, op, path);
  const probe = ctx.request(op, { path }, 'primary');
  if (!(await requiresAuth(ctx, op, read ? ctx.request(read, { path }, 'primary') : probe)))
    return { code: 'prerequisite_missing', notTested: 'answers without credentials (public)' };
  const before = read ? await readBack(ctx, read, path, 'primary') : undefined;
  if (read && !ok(before!))
    return { code: 'prerequisite_missing', notTested: `the first identity could not read its own resource (HTTP ${before!.status || before!.error})` };
  if (!isDelete) {
    // The owner may make this write: otherwise a 2xx for the other identity says nothing.
    const own = await ctx.send({ ...probe, identity: 'primary' });
    if (!ok(own)) return { code: 'prerequisite_missing', notTested: `the first identity could not change its own resource (HTTP ${own.status || own.error})` };
  }
  const { req, body } = otherWrite(ctx, op, path);
  const other = await ctx.send({ ...req, identity: 'secondary' });
  if (!ok(other)) return [pass(name)];
  // Side effects, where observable.
  if (isDelete) {
    const after = read ? await readBack(ctx, read, path, 'primary') : await ctx.send({ ...probe, identity: 'primary' });
    const gone = read ? after.status === 404 || after.status === 410 : after.status === 404 || after.status === 410;
    if (!gone) return [pass(name)];
    return [
      fail(
        name,
        'critical',
        ctx.evidence(
          other,
          `The second identity deleted the first identity's resource (HTTP ${other.status}); the owner then got HTTP ${after.status}: it is gone.`,
        ),
      ),
    ];
  }
  const proofs: string[] = [];
  if (read) {
    const after = await readBack(ctx, read, path, 'primary');
    const changed = changedFields(body, ctx.json(after));
    if (changed.length) proofs.push(`the owner re-read it and ${changed.join(', ')} now hold${changed.length === 1 ? 's' : ''} the second identity's values`);
  }
  const setsPassword = body && Object.keys(body).some(isPasswordField);
  const user = isSelfPath(ctx, op, path) ? ownUsername(ctx) : Object.values(path)[0];
  const login = setsPassword && user ? loginOperation(ctx) : undefined;
  if (login && user) {
    const res = await provenLogin(ctx, login, user, otherPassword(ctx));
    if (res) proofs.push(`the password it set logs in as ${user} (${login.key} answered HTTP ${res.status})`);
  }
  const observable = !!read || !!login;
  if (observable && proofs.length === 0) return [pass(name)];
  const proof = proofs.length ? `confirmed: ${proofs.join('; ')}` : 'not confirmed by a side effect (no operation reads the resource back)';
  return [
    fail(
      name,
      proofs.length ? 'critical' : 'high',
      ctx.evidence(
        other,
        `The second identity's write on the first identity's resource answered HTTP ${other.status}${other.body.trim() ? '' : ' with an empty body'}; ${proof}.`,
      ),
    ),
  ];
}

export const bola: OperationCheck = {
  id: 'bola',
  title: 'Broken object level authorization',
  description:
    'Takes a resource the first identity owns (one the scan created, its own account, or one only it can see) and reads, changes and deletes it with the second identity. A write counts when it succeeds for the other identity as it does for the owner, confirmed by a side effect where one is observable.',
  risk: "Any user can read, change or delete other users' data by changing an id in the URL: account takeover (another user's email or password), data theft and tampering.",
  remediation:
    'Check on every request that the authenticated user may access the object addressed (an ownership or policy check in the data access layer, not only in the UI); return 404 (or 403) for objects of other users. Prefer unguessable ids, but never rely on them.',
  owasp: 'API1:2023',
  cwe: 'CWE-639',
  references: [{ title: 'OWASP Authorization Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Authorization_Cheat_Sheet.html' }],
  stateful: true,
  scope: 'operation',
  applies(op, ctx) {
    // What does not apply first: only an operation BOLA would test is "not tested" for want of a second identity.
    if (op.publicByDesign) return 'public by design (security: [])';
    // An identifier in the body (`user_id` of a profile update) is an object id too (verb-authz.ts).
    if (!op.params.some((p) => p.in === 'path') && !bodyUserRef(op)) return 'no object id in the path';
    if (op.method !== 'GET' && !WRITES.has(op.method)) return 'not a read, update or delete';
    if (privilegeReason(op)) return 'privileged operation (judged by bfla)';
    if (!ctx.hasSecondary) return NO_SECOND_IDENTITY;
    return true;
  },
  async run(ctx, op): Promise<CheckOutcome> {
    if (!op.params.some((p) => p.in === 'path')) return bodyIdCase(ctx, op);
    if (op.method === 'GET') {
      const path = ownedPath(ctx, op);
      if (path) return readCase(ctx, op, path);
      // A value the second identity also saw (a shared catalogue) proves nothing; the spec's example,
      // or a value only the first identity saw, is the last resort, said in the results.
      const chosen = ctx.request(op, undefined, 'primary');
      const shared = op.params
        .filter((p) => p.in === 'path')
        .some((p) =>
          ctx
            .values(p.name, { op })
            .some((v) => v.identity === 'secondary' && v.from !== op.key && chosen.path.split('/').includes(encodeURIComponent(String(v.value)))),
        );
      if (shared) return { code: 'prerequisite_missing', notTested: 'only resources both identities can see were found' };
      const outcome = await readCase(ctx, op, {});
      return Array.isArray(outcome) ? outcome.map((r) => ({ ...r, invented: true })) : outcome;
    }
    return writeCase(ctx, op);
  },
};
