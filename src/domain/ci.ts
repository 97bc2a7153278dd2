/**
 * CI metadata of a scan: the repository, branch, commit and pull (merge) request a CI run scanned for,
 * sent by the CLI (read from GitHub Actions' or GitLab CI's environment, or given as flags) or by any
 * client in the start request's `ci` object. Scans are grouped by target and branch with it, and the
 * reports name the commit they judged (SARIF's versionControlProvenance). Rules only, no I/O.
 */

/** What a scan's `ci` holds once validated (absent fields are left out). */
export interface ScanCi {
  /** Which CI sent it: `github`, `gitlab`, or any other lower-case name (`cli` for bare flags). */
  provider?: string;
  /** The repository as the CI names it: `owner/name` (GitHub), `group/project` (GitLab). */
  repository?: string;
  /** The repository's web address (`https://github.com/owner/name`): links to the commit and pull request. */
  repository_url?: string;
  /** The branch scanned (a pull request's head branch). */
  branch?: string;
  /** A pull request's target branch: a first scan of the branch is compared against it. */
  base_branch?: string;
  /** The commit scanned: 7 to 64 hex characters, stored in lower case. */
  commit?: string;
  /** The pull (merge) request: its number or id, as text ("42"). */
  pr?: string;
  /** The CI run's (job's) web address. */
  run_url?: string;
}

export const CI_LIMITS = { branchLength: 255, repositoryLength: 255, urlLength: 2048, prLength: 64, providerLength: 32 } as const;

export const CI_FIELDS = ['provider', 'repository', 'repository_url', 'branch', 'base_branch', 'commit', 'pr', 'run_url'] as const;

/** A commit id: an abbreviated (7+) or full SHA-1 (40) or SHA-256 (64) object name. */
export const COMMIT_PATTERN = '^[0-9a-fA-F]{7,64}$';
/** A pull request id given as text: its number, or an id of letters, digits and . _ - # ! (e.g. `!42`). */
export const PR_PATTERN = '^[A-Za-z0-9._#!-]{1,64}$';
export const PROVIDER_PATTERN = '^[a-z0-9][a-z0-9_-]{0,31}$';
export const REPOSITORY_PATTERN = '^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$';

/**
 * Why `name` is not a branch name by git's rules (git check-ref-format --branch), or undefined when it is
 * one: no control characters, space or any of ~ ^ : ? * [ \; no `..`, `@{`, `//`; not starting with `-`
 * or `/`, not ending with `/`, `.` or `.lock`; no component starting with `.`; not `@` alone.
 */
export function branchNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'is empty';
  if (name.length > CI_LIMITS.branchLength) return `is longer than ${CI_LIMITS.branchLength} characters`;
  if (/[\u0000-\u0020\u007F~^:?*[\\]/.test(name)) return 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\ (git ref name rules)';
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return 'must not contain "..", "@{" or "//" (git ref name rules)';
  if (name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.endsWith('.lock'))
    return 'must not start with - or /, nor end with /, . or .lock (git ref name rules)';
  if (name.split('/').some((part) => part.startsWith('.'))) return 'must not have a component starting with . (git ref name rules)';
  if (name === '@') return 'must not be @ alone (git ref name rules)';
  return undefined;
}

/** "refs/heads/main" -> "main"; other names unchanged. */
export function shortBranch(ref: string): string {
  return ref.replace(/^refs\/heads\//, '');
}

/** The pull request's web address, when the provider and repository address are known. */
export function pullRequestUrl(ci: ScanCi | null | undefined): string | undefined {
  if (!ci?.pr || !ci.repository_url || !/^\d+$/.test(ci.pr)) return undefined;
  const base = ci.repository_url.replace(/\/+$/, '');
  if (ci.provider === 'github') return `${base}/pull/${ci.pr}`;
  if (ci.provider === 'gitlab') return `${base}/-/merge_requests/${ci.pr}`;
  return undefined;
}

/** The commit's web address, when the provider and repository address are known. */
export function commitUrl(ci: ScanCi | null | undefined): string | undefined {
  if (!ci?.commit || !ci.repository_url) return undefined;
  const base = ci.repository_url.replace(/\/+$/, '');
  if (ci.provider === 'github') return `${base}/commit/${ci.commit}`;
  if (ci.provider === 'gitlab') return `${base}/-/commit/${ci.commit}`;
  return undefined;
}

/** One line for reports and the terminal: "branch feature/x · commit 1a2b3c4 · PR #42". */
export function ciSummary(ci: ScanCi | null | undefined): string | undefined {
  if (!ci) return undefined;
  const parts = [
    ci.repository && `${ci.repository}`,
    ci.branch && `branch ${ci.branch}`,
    ci.commit && `commit ${ci.commit.slice(0, 12)}`,
    ci.pr && `${ci.provider === 'gitlab' ? 'MR !' : 'PR #'}${ci.pr.replace(/^[#!]/, '')}`,
  ].filter(Boolean);
  return parts.length ? parts.join(' · ') : undefined;
}
