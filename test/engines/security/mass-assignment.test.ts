/**
 * Mass assignment of declared privileged properties (issue 26 item 5) and account checks on fields
 * inside envelopes (item 1), on the api-shapes fixture and its fixed twin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecurityEngine } from '../../../src/engines/security/index.js';
import type { Task } from '../../../src/domain/scan.js';
import { TOKENS, shapesSpec, startShapes, type ShapesFixture } from '../../fixtures/api-shapes/server.js';
import { inSpellingOf, resourcePlace } from '../../../src/engines/security/checks/privileged.js';
import { uniqueBody } from '../../../src/engines/security/unique-values.js';
import type { Operation } from '../../../src/engines/security/types.js';
import { makeCtx } from './helpers.js';

const AUTH = { type: 'bearer' as const, token: TOKENS.alice, secondary: { type: 'bearer' as const, token: TOKENS.bob } };

async function scan(fx: ShapesFixture, checks: string[]): Promise<Task[]> {
  const out = await createSecurityEngine({ tuning: { onlyChecks: checks } }).run(makeCtx({ url: fx.url, spec_text: JSON.stringify(shapesSpec()), auth: AUTH }));
  return out.tasks;
}

const task = (tasks: Task[], endpoint: string, name: RegExp) => tasks.filter((t) => t.endpoint === endpoint && name.test(t.name));
const list = (tasks: Task[], endpoint: string) =>
  tasks
    .filter((t) => t.endpoint === endpoint)
    .map((t) => `${t.name}: ${t.status} ${t.severity ?? ''} ${t.evidence ?? ''}`)
    .join('\n');

describe.each([false, true])('declared privileged properties (fixed: %s)', (fixed) => {
  let fx: ShapesFixture;
  let tasks: Task[];
  beforeAll(async () => {
    fx = await startShapes({ fixed });
    tasks = await scan(fx, ['mass-assignment']);
  }, 120_000);
  afterAll(async () => {
    await fx?.close();
  });

  it('registers accounts with a declared staff flag inside the envelope, one property per request, each with its own username, email and phone', () => {
    const [declared] = task(tasks, 'POST /signup', /Privileged property set by the caller/);
    expect(declared?.status, list(tasks, 'POST /signup')).toBe(fixed ? 'passed' : 'failed');
    if (!fixed) {
      expect(declared.severity).toBe('high');
      expect(declared.parameter).toBe('user.is_staff');
      expect(declared.evidence).toMatch(/while an account registered without it shows is_staff=false/);
    }
    // Every registration got through (a repeated username, email or phone answers 409): the control and the probe at least.
    const accounts = fx.accounts();
    expect(accounts.length).toBeGreaterThanOrEqual(2);
    // `role` (buyer or seller) is the account's own choice: never reported, and only its enum's values were sent.
    expect(task(tasks, 'POST /signup', /./).filter((t) => t.status === 'failed' && /role/.test(t.parameter ?? ''))).toEqual([]);
    for (const a of accounts) expect(['buyer', 'seller']).toContain(a.role);
    // The undeclared properties (admin, is_admin...) go inside the envelope too; the target ignores them on both sides.
    const [undeclared] = task(tasks, 'POST /signup', /Undeclared privileged properties/);
    expect(undeclared?.status, list(tasks, 'POST /signup')).toBe('passed');
  });

  it("updates an account of its own with roles in the target's spelling (ROLE_ADMIN), inside JSON:API data.attributes, never the identities' accounts", () => {
    const [declared] = task(tasks, 'PATCH /account', /Privileged property set by the caller/);
    expect(declared?.status, list(tasks, 'PATCH /account')).toBe(fixed ? 'passed' : 'failed');
    if (!fixed) {
      expect(declared.severity).toBe('high');
      expect(declared.parameter).toBe('data.attributes.roles');
      expect(declared.evidence).toMatch(/roles=\["ROLE_(ADMIN|STAFF|SUPERUSER)"\]/);
      expect(declared.evidence).toMatch(/An account the scan registered \(POST \/signup\)/);
      // The escalated account is one the scan registered.
      expect(fx.accounts().some((a) => a.roles.some((r) => r !== 'ROLE_USER'))).toBe(true);
    } else expect(fx.accounts().every((a) => a.roles.join() === 'ROLE_USER')).toBe(true);
    expect(fx.identityPrivileges()).toEqual({ alice: { is_staff: false, roles: ['ROLE_USER'] }, bob: { is_staff: false, roles: ['ROLE_USER'] } });
  });
});

describe.each([false, true])('account enumeration inside an envelope (fixed: %s)', (fixed) => {
  let fx: ShapesFixture;
  beforeAll(async () => {
    fx = await startShapes({ fixed });
  });
  afterAll(async () => {
    await fx?.close();
  });

  it('compares a known and an unknown email sent as {"user": {"email", "password"}}', async () => {
    const tasks = await scan(fx, ['account-enumeration']);
    const [login] = task(tasks, 'POST /users/login', /Different answers for unknown and known accounts/);
    expect(login?.status, list(tasks, 'POST /users/login')).toBe(fixed ? 'passed' : 'failed');
    expect(login.parameter).toBe('user.email');
    if (!fixed) expect(login.evidence).toMatch(/no such user/);
  }, 120_000);
});

describe('privileged values and places', () => {
  it('spells privileged roles the way the target spells its own', () => {
    expect(inSpellingOf('ROLE_USER', ['admin'])).toBe('ROLE_ADMIN');
    expect(inSpellingOf('ROLE_USER', ['super', 'user'])).toBe('ROLE_SUPERUSER');
    expect(inSpellingOf('Member', ['staff'])).toBe('Staff');
    expect(inSpellingOf('Member', ['super', 'user'])).toBe('SuperUser');
    expect(inSpellingOf('MEMBER', ['admin'])).toBe('ADMIN');
    expect(inSpellingOf('member', ['super', 'user'])).toBe('superuser');
    expect(inSpellingOf(undefined, ['admin'])).toBe('admin');
  });

  it('puts a resource\'s properties inside its envelope: {"user": {...}}, JSON:API data.attributes, or the top of a flat body', () => {
    const op = (schema: object) =>
      ({ key: 'POST /x', method: 'POST', path: '/x', params: [], body: { contentType: 'application/json', schema } }) as unknown as Operation;
    const str = { type: 'string' };
    expect(resourcePlace(op({ type: 'object', properties: { user: { type: 'object', properties: { username: str, email: str } } } }))).toEqual(['user']);
    expect(
      resourcePlace(
        op({ type: 'object', properties: { data: { type: 'object', properties: { type: str, attributes: { type: 'object', properties: { bio: str } } } } } }),
      ),
    ).toEqual(['data', 'attributes']);
    expect(resourcePlace(op({ type: 'object', properties: { title: str, body: str } }))).toEqual([]);
  });

  it("never makes an account privileged with the scan's ordinary bodies: flags false, roles unprivileged", () => {
    const schema = {
      properties: { user: { properties: { role: { type: 'string', enum: ['admin', 'member'] }, roles: { type: 'array', items: { type: 'string' } } } } },
    };
    expect(uniqueBody({ user: { is_staff: true, isAdmin: true, role: 'admin', roles: ['ROLE_ADMIN'], premium: true } }, schema, 'vigil-0a1b2c3d', 1)).toEqual({
      user: { is_staff: false, isAdmin: false, role: 'member', roles: [], premium: true },
    });
    expect(uniqueBody({ role: 'superuser' }, {}, 'vigil-0a1b2c3d', 1)).toEqual({ role: 'user' });
  });

  it('gives each request its own phone number, in the format the schema asks for', () => {
    const schema = { properties: { user: { properties: { phone: { type: 'string', pattern: '^[0-9]{8,15}$' } } } } };
    const a = uniqueBody({ user: { phone: '0600000000' } }, schema, 'vigil-0a1b2c3d', 1) as { user: { phone: string } };
    const b = uniqueBody({ user: { phone: '0600000000' } }, schema, 'vigil-0a1b2c3d', 2) as { user: { phone: string } };
    expect(a.user.phone).toMatch(/^[0-9]{8,15}$/);
    expect(a.user.phone).not.toBe(b.user.phone);
  });
});
