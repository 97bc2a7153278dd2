import { describe, expect, it } from 'vitest';
import { groupsOf, mappedRole, roleAllows, safeReturnPath, sessionIsLive } from '../../src/domain/access.js';

describe('roles', () => {
  it.each([
    ['viewer', 'read', true],
    ['viewer', 'operate', false],
    ['viewer', 'administer', false],
    ['member', 'operate', true],
    ['member', 'administer', false],
    ['admin', 'administer', true],
  ] as const)('%s may %s: %s', (role, permission, allowed) => {
    expect(roleAllows(role, permission)).toBe(allowed);
  });

  it('maps groups to the highest role named, else nothing', () => {
    const mapping = { admins: 'admin', devs: 'member', auditors: 'viewer' } as const;
    expect(mappedRole(['auditors', 'devs'], mapping)).toBe('member');
    expect(mappedRole(['devs', 'admins'], mapping)).toBe('admin');
    expect(mappedRole(['others'], mapping)).toBeUndefined();
    expect(mappedRole(['constructor', '__proto__'], mapping)).toBeUndefined();
    expect(groupsOf('devs')).toEqual(['devs']);
    expect(groupsOf(['a', 1, 'b'])).toEqual(['a', 'b']);
    expect(groupsOf(undefined)).toEqual([]);
  });
});

describe('session expiry', () => {
  const session = { created_at: '2026-11-26T10:00:00.000Z', last_seen_at: '2026-11-26T11:00:00.000Z', expires_at: '2026-11-26T22:00:00.000Z' };
  it('lives while seen within the idle time and before the absolute expiry', () => {
    expect(sessionIsLive(session, new Date('2026-11-26T11:59:00.000Z'), 3600)).toBe(true);
    expect(sessionIsLive(session, new Date('2026-11-26T12:00:00.000Z'), 3600)).toBe(false);
    expect(sessionIsLive({ ...session, last_seen_at: '2026-11-26T21:59:00.000Z' }, new Date('2026-11-26T22:00:00.000Z'), 3600)).toBe(false);
  });
});

describe('sign-in return address', () => {
  it.each([
    ['/app/scans?x=1', '/app/scans?x=1'],
    ['/app', '/app'],
    ['/app/scans#top', '/app/scans#top'],
    ['https://evil.test/app', '/app/'],
    ['//evil.test/app', '/app/'],
    ['/\\evil.test', '/app/'],
    ['/app/../../evil', '/app/'],
    ['/app%2f%2fevil.test', '/app/'],
    ['/application', '/app/'],
    ['/app/\u0000', '/app/'],
    ['javascript:alert(1)', '/app/'],
    [undefined, '/app/'],
  ])('%s -> %s', (given, expected) => {
    expect(safeReturnPath(given)).toBe(expected);
  });
});
