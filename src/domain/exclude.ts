/**
 * `options.exclude`, one rule for every engine (docs/scans.md): each pattern is a path (`/admin`)
 * or an absolute URL; `*` matches any run of characters (slashes included); a pattern without `*`
 * matches that path and everything below it (`/admin` covers `/admin` and `/admin/users`, not
 * `/administrator`). Matching ignores case and the query string.
 */
export type ExcludeMatcher = (...candidates: string[]) => boolean;

function escape(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

function compile(pattern: string): RegExp {
  const body = pattern.split('*').map(escape).join('.*');
  if (pattern.includes('*')) return new RegExp(`^${body}$`, 'i');
  return new RegExp(`^${body.replace(/\/$/, '')}(?:/.*)?$`, 'i');
}

/** True when any candidate (a path, an absolute URL, or an operation's "METHOD /path") is excluded. */
export function compileExclude(patterns: readonly string[]): ExcludeMatcher {
  const rules = patterns
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map(compile);
  if (rules.length === 0) return () => false;
  return (...candidates) =>
    candidates.some((candidate) => {
      const withoutQuery = candidate.split(/[?#]/, 1)[0]!;
      const path = /^https?:\/\//i.test(withoutQuery) ? new URL(withoutQuery).pathname : undefined;
      return rules.some((rule) => rule.test(withoutQuery) || (path !== undefined && rule.test(path)));
    });
}
