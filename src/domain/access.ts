/**
 * Members' roles and what each may do, session expiry and sign-in return addresses (docs/sso.md): pure
 * rules, no I/O.
 */

export const ROLES = ['admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What a request needs: `read` (every GET), `operate` (scans, baselines, suppressions: member and admin),
 * `administer` (SSO, members, keys, billing, notification settings: admin only).
 */
export type Permission = 'read' | 'operate' | 'administer';

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2 };
const NEEDS: Record<Permission, number> = { read: 0, operate: 1, administer: 2 };

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function roleAllows(role: Role, permission: Permission): boolean {
  return RANK[role] >= NEEDS[permission];
}

/**
 * The role the identity provider's groups give: the highest role any of `groups` maps to, else undefined
 * (then a new member gets the default role and a known one keeps theirs).
 */
export function mappedRole(groups: readonly string[], mapping: Readonly<Record<string, Role>>): Role | undefined {
  let best: Role | undefined;
  for (const group of groups) {
    const role = Object.hasOwn(mapping, group) ? mapping[group] : undefined;
    if (role && (best === undefined || RANK[role] > RANK[best])) best = role;
  }
  return best;
}

/** The group claim's value as a list of strings (a string, an array of strings, or nothing). */
export function groupsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

export interface SessionTimes {
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

/** A session lives until its absolute expiry and while it was seen within `idleSeconds`. */
export function sessionIsLive(session: SessionTimes, now: Date, idleSeconds: number): boolean {
  const at = now.getTime();
  return at < Date.parse(session.expires_at) && at - Date.parse(session.last_seen_at) < idleSeconds * 1000;
}

/**
 * Where a sign-in may return: a path of the dashboard (`/app` or below) on this server, never another
 * origin (`//evil.test`, `/\\evil.test`, `https://...`, encoded slashes or control characters). Anything
 * else: the dashboard's home.
 */
export function safeReturnPath(value: unknown): string {
  const home = '/app/';
  if (typeof value !== 'string' || value.length > 2048) return home;
  if (!/^\/app(\/|$|\?)/.test(value)) return home;
  if (/[\\\u0000-\u001f\u007f]/.test(value) || /%2f|%5c/i.test(value) || value.startsWith('//')) return home;
  try {
    const resolved = new URL(value, 'http://vigil.invalid');
    if (resolved.origin !== 'http://vigil.invalid' || !resolved.pathname.startsWith('/app')) return home;
    return resolved.pathname + resolved.search + resolved.hash;
  } catch {
    return home;
  }
}
