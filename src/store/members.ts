import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { sessionIsLive, type Role } from '../domain/access.js';
import { newId } from '../domain/ids.js';
import { storableText } from './database.js';
import type { Database, DashboardSessionsTable, MembersTable } from './schema.js';

export type Member = MembersTable;
export type DashboardSession = DashboardSessionsTable;

/** A live session as a request sees it: whose, with which role. */
export interface ResolvedSession {
  session: DashboardSession;
  member: Member | undefined;
  /** The member's role now (a key sign-in is an admin, like the key). */
  role: Role;
}

export interface SessionTimeouts {
  idleSeconds: number;
  absoluteSeconds: number;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Members of tenants and their dashboard sessions, in the store so every api process sees them. Every
 * method is scoped by tenant (a session token is looked up by its hash, then carries its tenant).
 */
export class MemberRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly timeouts: SessionTimeouts,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * The member of `subject` after an SSO sign-in: created on the first one (just in time) with `role` (or
   * `defaultRole`), updated on later ones (email, name, and the role when the IdP's groups give one).
   */
  async provision(
    tenantId: string,
    identity: { subject: string; email: string | null; name: string | null },
    role: Role | undefined,
    defaultRole: Role,
  ): Promise<{ member: Member; created: boolean; roleChanged: boolean }> {
    const now = this.clock().toISOString();
    return this.db.transaction().execute(async (trx) => {
      const existing = await trx.selectFrom('members').selectAll().where('tenant_id', '=', tenantId).where('subject', '=', identity.subject).executeTakeFirst();
      if (existing) {
        const next = {
          email: identity.email ?? existing.email,
          name: identity.name ?? existing.name,
          role: role ?? existing.role,
          updated_at: now,
          last_sign_in_at: now,
        };
        await trx.updateTable('members').set(next).where('tenant_id', '=', tenantId).where('id', '=', existing.id).execute();
        return { member: { ...existing, ...next }, created: false, roleChanged: next.role !== existing.role };
      }
      const member: Member = {
        id: newId('mem'),
        tenant_id: tenantId,
        subject: identity.subject,
        email: identity.email,
        name: identity.name,
        role: role ?? defaultRole,
        created_at: now,
        updated_at: now,
        last_sign_in_at: now,
      };
      await trx.insertInto('members').values(member).execute();
      return { member, created: true, roleChanged: false };
    });
  }

  async list(tenantId: string, page: number, perPage: number): Promise<{ items: Member[]; total: number }> {
    const base = this.db.selectFrom('members').where('tenant_id', '=', tenantId);
    const [items, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('created_at')
        .orderBy('id')
        .limit(perPage)
        .offset((page - 1) * perPage)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.n) };
  }

  async get(tenantId: string, memberId: string): Promise<Member | undefined> {
    if (!storableText(memberId)) return undefined;
    return this.db.selectFrom('members').selectAll().where('tenant_id', '=', tenantId).where('id', '=', memberId).executeTakeFirst();
  }

  async setRole(tenantId: string, memberId: string, role: Role): Promise<Member | undefined> {
    const member = await this.get(tenantId, memberId);
    if (!member) return undefined;
    await this.db
      .updateTable('members')
      .set({ role, updated_at: this.clock().toISOString() })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', memberId)
      .execute();
    return { ...member, role };
  }

  /** Removes a member and ends their sessions at once. */
  async remove(tenantId: string, memberId: string): Promise<Member | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const member = await trx.selectFrom('members').selectAll().where('tenant_id', '=', tenantId).where('id', '=', memberId).executeTakeFirst();
      if (!member) return undefined;
      await trx.deleteFrom('dashboard_sessions').where('tenant_id', '=', tenantId).where('member_id', '=', memberId).execute();
      await trx.deleteFrom('members').where('tenant_id', '=', tenantId).where('id', '=', memberId).execute();
      return member;
    });
  }

  /** Opens a session; returns the cookie's token (only ever in the cookie) and the CSRF token. */
  async openSession(
    tenantId: string,
    by: { memberId: string } | { keyPrefix: string },
    method: DashboardSession['method'],
  ): Promise<{ token: string; session: DashboardSession }> {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock();
    const session: DashboardSession = {
      token_hash: hashToken(token),
      tenant_id: tenantId,
      member_id: 'memberId' in by ? by.memberId : null,
      key_prefix: 'keyPrefix' in by ? by.keyPrefix : null,
      method,
      csrf_token: randomBytes(24).toString('base64url'),
      created_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.timeouts.absoluteSeconds * 1000).toISOString(),
    };
    await this.db.insertInto('dashboard_sessions').values(session).execute();
    return { token, session };
  }

  /**
   * The live session of a cookie token, with its member's role now; undefined when unknown, expired (idle
   * or absolute: it is deleted) or its member was removed. Marks it seen once a quarter of the idle time (at most a minute) has passed since it last was.
   */
  async resolveSession(token: string): Promise<ResolvedSession | undefined> {
    if (!/^[A-Za-z0-9_-]{16,128}$/.test(token)) return undefined;
    const tokenHash = hashToken(token);
    const session = await this.db.selectFrom('dashboard_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    if (!session) return undefined;
    const now = this.clock();
    if (!sessionIsLive(session, now, this.timeouts.idleSeconds)) {
      await this.db.deleteFrom('dashboard_sessions').where('token_hash', '=', tokenHash).execute();
      return undefined;
    }
    let member: Member | undefined;
    if (session.member_id !== null) {
      member = await this.get(session.tenant_id, session.member_id);
      if (!member) return undefined;
    }
    // Seen again once a quarter of the idle time (at most a minute) passed: one write per session and
    // quarter, and a session in use never reaches its idle end however short that is.
    if (now.getTime() - Date.parse(session.last_seen_at) > Math.min(60_000, (this.timeouts.idleSeconds * 1000) / 4)) {
      const seen = now.toISOString();
      await this.db.updateTable('dashboard_sessions').set({ last_seen_at: seen }).where('token_hash', '=', tokenHash).execute();
      session.last_seen_at = seen;
    }
    return { session, member, role: member?.role ?? 'admin' };
  }

  async endSession(token: string): Promise<void> {
    await this.db.deleteFrom('dashboard_sessions').where('token_hash', '=', hashToken(token)).execute();
  }

  /** Ends every session of a tenant opened with a key (SSO became required, or the key was rotated). */
  async endKeySessions(tenantId: string): Promise<void> {
    await this.db.deleteFrom('dashboard_sessions').where('tenant_id', '=', tenantId).where('method', '=', 'key').execute();
  }
}
