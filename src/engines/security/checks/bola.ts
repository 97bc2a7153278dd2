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
  selfReadOperation,
  similarity,
} from './authz.js';
import { markedBody } from '../unique-values.js';
import { keysForParam, listedItems, normKey } from '../resources.js';
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
 * shows (titles listed, each book's secret only in its own read) does not make it shared, and
 * neither does an entry whose owner field names the first identity's account (not the second's):
 * that list leaks the object too (listCase reports it), it does not make it public.
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
  const mine = accountValues(ctx, 'primary');
  const theirs = accountValues(ctx, 'secondary');
  let shared = false;
  const walk = (node: unknown, depth: number) => {
    if (shared || depth > 6 || node === null || typeof node !== 'object') return;
    const values = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    if (
      !Array.isArray(node) &&
      values.some((v) => (typeof v === 'string' || typeof v === 'number') && String(v) === value) &&
      similarity(JSON.stringify(node), owner.body) >= 0.8 &&
      !ownedByFirst(ownerOf(node as Record<string, unknown>), mine, theirs)
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

/** Fields of a listed item that name its owner (`userId`, `owner_id`, `author`, `created_by`...). */
const OWNER_FIELD = /^(user_?id|owner(_?id)?|author(_?id)?|created_?by(_?id)?|account_?id|customer_?id|member_?id|uid)$/i;
/** An item's owner field (`userId`, `owner_id`...) and its value, when it has one. */
function ownerOf(item: Record<string, unknown>): [string, string | number] | undefined {
  return Object.entries(item).find((e): e is [string, string | number] => OWNER_FIELD.test(e[0]) && (typeof e[1] === 'string' || typeof e[1] === 'number'));
}

/** Whether an owner value is the first identity's account and not the second's. */
function ownedByFirst(owner: [string, string | number] | undefined, mine: Set<string>, theirs: Set<string>): boolean {
  return !!owner && mine.has(String(owner[1])) && !theirs.has(String(owner[1]));
}

/** Keys of an identity's own account values: its token's claims, its profile. */
const IDENTITY_KEYS = ['sub', 'userid', 'uid', 'id', 'username', 'email'];

/** The values that name an identity's own account (its token's claims, its profile read). */
function accountValues(ctx: CheckContext, identity: 'primary' | 'secondary'): Set<string> {
  const self = selfReadOperation(ctx)?.key;
  const out = new Set<string>();
  for (const k of IDENTITY_KEYS)
    for (const v of ctx.values(k, { identity, owned: true })) if (v.identity === identity && (v.from === 'token' || v.from === self)) out.add(String(v.value));
  return out;
}

/** The read of one item of a collection (`GET /notes/{id}` for `GET /notes`), and its parameter. */
function itemRead(ctx: CheckContext, list: Operation): { op: Operation; param: string } | undefined {
  const base = list.path.replace(/\/$/, '');
  for (const o of ctx.model.operations) {
    const m = o.method === 'GET' ? new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\{([^}]+)\\}/?$`).exec(o.path) : null;
    if (m && o.params.filter((p) => p.in === 'path').length === 1) return { op: o, param: m[1] };
  }
  return undefined;
}

/**
 * A collection read (`GET /notes`) that lists the first identity's objects to the second: an item
 * whose owner field (`userId`, `owner_id`...) holds the first identity's own account (high), or
 * an item the collection's own item read refuses the second identity while the first reads it
 * (medium when the items name no owner). Not when the list is public content (the anonymous read
 * answers the same) and not for items that name the second identity as their owner.
 */
async function listCase(ctx: CheckContext, op: Operation): Promise<CheckOutcome> {
  const name = 'Objects of one identity listed to another';
  const req = ctx.request(op, undefined, 'secondary');
  const other = await ctx.send({ ...req, identity: 'secondary' });
  if (!ok(other)) return { code: 'prerequisite_missing', notTested: `the second identity could not read the list (HTTP ${other.status || other.error})` };
  const items = listedItems(ctx.json(other));
  if (!items.length) return { code: 'prerequisite_missing', notTested: 'the list was empty for the second identity' };
  if (!(await requiresAuth(ctx, op, req)) || (op.secured && sameContent(other, await ctx.send({ ...req, identity: 'none', headers: { ...req.headers } }))))
    return { code: 'prerequisite_missing', notTested: 'answers without credentials (public)' };
  const mine = accountValues(ctx, 'primary');
  const theirs = accountValues(ctx, 'secondary');
  const read = itemRead(ctx, op);
  const idOf = (item: Record<string, unknown>) => {
    if (!read) return undefined;
    const keys = new Set([...keysForParam(read.op, read.param).map(normKey), normKey(read.param), 'id']);
    const hit = Object.entries(item).find(([k, v]) => keys.has(normKey(k)) && (typeof v === 'string' || typeof v === 'number'));
    return hit ? String(hit[1]) : undefined;
  };
  // Items that name another owner than the second identity: the first identity's first (the proof is stronger), at most three item reads.
  const candidates = items
    .map((item) => ({ item, owner: ownerOf(item) }))
    .filter(({ owner }) => !owner || !theirs.has(String(owner[1])))
    .sort((a, b) => Number(!!b.owner && mine.has(String(b.owner[1]))) - Number(!!a.owner && mine.has(String(a.owner[1]))))
    // Then a record that is the first identity's own (its account in a list of users): the likeliest the item read refuses.
    .sort((a, b) => Number(!a.owner && mine.has(idOf(b.item) ?? '')) - Number(!b.owner && mine.has(idOf(a.item) ?? '')));
  let tries = 0;
  for (const { item, owner } of candidates) {
    const firstOwns = ownedByFirst(owner, mine, theirs);
    if (!firstOwns && !read) continue;
    if (!firstOwns && tries >= 3) break;
    const id = idOf(item);
    let refused: TargetResponse | undefined;
    if (read && id !== undefined && tries < 3) {
      tries++;
      const itemReq = ctx.request(read.op, { path: { [read.param]: id } }, 'secondary');
      const byOther = await ctx.send({ ...itemReq, identity: 'secondary' });
      // Refused: 401/403/404, or any other 4xx where the same request by the first identity answers 2xx (FastAPI's
      // template answers 400 "not enough privileges"): the requests differ only by who asks.
      if (byOther.status >= 400 && byOther.status < 500 && byOther.status !== 429) {
        const byFirst = await ctx.send({ ...itemReq, identity: 'primary' });
        if (ok(byFirst)) refused = byOther;
      } else if (ok(byOther) && !firstOwns) continue;
    }
    if (!firstOwns && !refused) continue;
    const shown = JSON.stringify(item).slice(0, 200);
    const why = [
      firstOwns ? `its ${owner![0]} is the first identity's (${String(owner![1])})` : '',
      refused ? `${read!.op.key} refuses the second identity that item (HTTP ${refused.status}) while the first identity reads it with the same request` : '',
    ]
      .filter(Boolean)
      .join('; ');
    return [
      fail(
        name,
        firstOwns ? 'high' : 'medium',
        ctx.evidence(other, `The second identity's list shows an object of the first identity: ${why}. The item: ${shown}`),
      ),
    ];
  }
  return [pass(name)];
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
    if (op.method !== 'GET' && !WRITES.has(op.method)) return 'not a read, update or delete';
    // Without an id in the path: a collection read with an item read (`GET /notes`, `GET /notes/{id}`) is judged by what it
    // lists, and an identifier in the body (`user_id` of a profile update) is an object id too (verb-authz.ts).
    if (!op.params.some((p) => p.in === 'path') && !(op.method === 'GET' && itemRead(ctx, op)) && !bodyUserRef(op)) return 'no object id in the path';
    if (privilegeReason(op)) return 'privileged operation (judged by bfla)';
    if (!ctx.hasSecondary) return NO_SECOND_IDENTITY;
    return true;
  },
  async run(ctx, op): Promise<CheckOutcome> {
    if (!op.params.some((p) => p.in === 'path')) return op.method === 'GET' && itemRead(ctx, op) ? listCase(ctx, op) : bodyIdCase(ctx, op);
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
