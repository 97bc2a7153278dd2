/**
 * API5:2023 Broken function level authorization: operations meant for privileged users (admin
 * paths and tags, role changes, deleting accounts) tried with the second identity. A finding
 * needs the operation to be protected (declared security, or refused without credentials) and
 * the second identity to get through: a 2xx with a real answer, or, for a delete, the resource gone.
 */
import { words } from '../phases.js';
import type { CheckContext, CheckOutcome, Operation, OperationCheck } from '../types.js';
import { NO_SECOND_IDENTITY, ok, ownedPath, pathParams, readBack, readOperationFor, requiresAuth } from './authz.js';
import { fail, pass } from './util.js';
import { collectionWrite, collectionWriteCase } from './verb-authz.js';

const ADMIN_WORDS = new Set([
  'admin',
  'admins',
  'administrator',
  'administration',
  'internal',
  'manage',
  'management',
  'staff',
  'superuser',
  'root',
  'moderator',
  'moderation',
  'backoffice',
  'sudo',
  'system',
  'ops',
  'operator',
  'privileged',
]);
const ROLE_WORDS = new Set([
  'role',
  'roles',
  'permission',
  'permissions',
  'privilege',
  'privileges',
  'grant',
  'grants',
  'promote',
  'demote',
  'ban',
  'unban',
  'suspend',
  'impersonate',
]);
const ACCOUNT_RESOURCES = new Set([
  'user',
  'users',
  'account',
  'accounts',
  'member',
  'members',
  'customer',
  'customers',
  'employee',
  'employees',
  'tenant',
  'tenants',
  'organization',
  'organizations',
  'org',
  'orgs',
]);
const ROLE_PROPERTY = /^(role|roles|permissions|is_?admin|admin|is_?staff|is_?superuser|scopes?|groups?)$/i;

/** Why an operation looks privileged, or undefined. */
export function privilegeReason(op: Operation): string | undefined {
  const literal = words(op.path.replace(/\{[^}]*\}/g, ' '));
  const ids = [...literal, ...words(op.operationId ?? '')];
  if (ids.some((w) => ADMIN_WORDS.has(w)) || op.tags.some((t) => words(t).some((w) => ADMIN_WORDS.has(w)))) return 'admin operation';
  if (ids.some((w) => ROLE_WORDS.has(w))) return 'changes roles or permissions';
  if (op.method === 'DELETE' && literal.length > 0 && ACCOUNT_RESOURCES.has(literal.filter((w) => !/^v\d+$/.test(w)).at(-1) ?? '') && /\}\/?$/.test(op.path))
    return 'deletes an account';
  if (
    ['PUT', 'PATCH', 'POST'].includes(op.method) &&
    Object.keys(op.body?.schema?.properties ?? {}).some((k) => ROLE_PROPERTY.test(k)) &&
    ids.some((w) => ACCOUNT_RESOURCES.has(w))
  )
    return 'sets roles of an account';
  return undefined;
}

export const bfla: OperationCheck = {
  id: 'bfla',
  title: 'Broken function level authorization',
  description:
    'Tries operations meant for privileged users (admin paths and tags, role and permission changes, deleting accounts) with the second identity, on resources the scan created; and updates of entries of a collection the second identity reads but the scan did not create (a catalogue staff manage), with a real id and the values the entry already has, where 2xx, or 409/422 from a business rule, shows the write got past authorization. The operation must be protected (declared security or refused without credentials).',
  risk: 'A regular user can call administrative functions: list or delete every account, change roles, make themselves an administrator.',
  remediation:
    "Deny by default: every administrative route checks the caller's role on the server (a policy per route or controller, not a hidden URL). Keep admin functions on separate, role-checked routers, and test them with a non-admin account.",
  owasp: 'API5:2023',
  cwe: 'CWE-285',
  references: [{ title: 'OWASP Authorization Cheat Sheet', url: 'https://cheatsheetseries.owasp.org/cheatsheets/Authorization_Cheat_Sheet.html' }],
  stateful: true,
  scope: 'operation',
  applies(op, ctx) {
    if (op.publicByDesign) return 'public by design (security: [])';
    // A write on a collection's entries is tried too, without an admin word (verb-authz.ts).
    if (!privilegeReason(op) && !collectionWrite(op, ctx)) return 'not a privileged-looking operation';
    if (!ctx.hasSecondary) return NO_SECOND_IDENTITY;
    return true;
  },
  async run(ctx: CheckContext, op): Promise<CheckOutcome> {
    const reason = privilegeReason(op);
    if (!reason) return collectionWriteCase(ctx, op);
    const name = `Privileged operation (${reason}) reachable by the second identity`;
    // Writes touch only what the scan created; reads may use anything real.
    const write = op.method !== 'GET';
    const path = pathParams(op).length ? (ownedPath(ctx, op, { created: write }) ?? (write ? undefined : {})) : {};
    if (!path) return { code: 'prerequisite_missing', notTested: 'no resource the scan created to act on' };
    const req = ctx.request(op, { path }, 'primary');
    if (!(await requiresAuth(ctx, op, write ? (readOperationFor(ctx, op) ? ctx.request(readOperationFor(ctx, op)!, { path }, 'primary') : req) : req))) {
      return { code: 'prerequisite_missing', notTested: 'answers without credentials (public)' };
    }
    const read = op.method === 'DELETE' ? readOperationFor(ctx, op) : undefined;
    const other = await ctx.send({ ...req, identity: 'secondary' });
    if (!ok(other)) return [pass(name)];
    if (op.method === 'GET' && !other.body.trim()) return [pass(name)];
    if (op.method === 'DELETE' && read) {
      const after = await readBack(ctx, read, path, 'primary');
      if (after.status !== 404 && after.status !== 410) return [pass(name)];
      return [
        fail(
          name,
          'critical',
          ctx.evidence(
            other,
            `The second identity called ${op.key} (HTTP ${other.status}) and the resource is gone (the owner now gets HTTP ${after.status}).`,
          ),
        ),
      ];
    }
    return [
      fail(
        name,
        op.method === 'GET' ? 'high' : 'critical',
        ctx.evidence(other, `The second identity called ${op.key} and got HTTP ${other.status}: ${ctx.excerpt(other, 200)}`),
      ),
    ];
  },
};
