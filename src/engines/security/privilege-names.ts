/**
 * Names and values that grant privileges: a property named `admin`, `is_staff`, `isAdmin`, `role`,
 * `roles` or `permissions`, a role value such as `admin` or `ROLE_STAFF`. Mass assignment tries
 * them; the scan's ordinary bodies never set them.
 */
import { words } from './phases.js';

/** A role value that grants more than an ordinary account has. */
export const PRIVILEGED_ROLE = /admin|owner|root|super|manager|staff|moderator/i;
/** Words of a property name that say it grants privileges. */
const PRIVILEGE_WORDS = new Set([
  'admin',
  'administrator',
  'superuser',
  'superadmin',
  'staff',
  'root',
  'moderator',
  'role',
  'roles',
  'permission',
  'permissions',
  'privilege',
  'privileges',
  'authorities',
]);

/** True when a property's name says it grants privileges (`admin`, `is_staff`, `isAdmin`, `role`, `roles`, `permissions`). */
export function isPrivilegeName(name: string): boolean {
  return words(name).some((w) => PRIVILEGE_WORDS.has(w)) || /^(is_?)?(super_?user|admin)$/i.test(name);
}

/**
 * An ordinary value for a privilege property of a plain body: `false` for a flag, the first
 * unprivileged value of an enum for a role (or a list of them); `undefined` to keep the value.
 */
export function ordinaryValue(name: string, value: unknown, enumValues: unknown[] | undefined): unknown {
  if (!isPrivilegeName(name)) return undefined;
  if (typeof value === 'boolean') return false;
  const plain = enumValues?.find((v) => typeof v === 'string' && !PRIVILEGED_ROLE.test(v));
  if (typeof value === 'string' && PRIVILEGED_ROLE.test(value)) return plain ?? (enumValues?.length ? undefined : 'user');
  if (Array.isArray(value) && value.some((v) => typeof v === 'string' && PRIVILEGED_ROLE.test(v))) return plain === undefined ? [] : [plain];
  return undefined;
}
