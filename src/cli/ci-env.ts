/**
 * The start request's `ci` (what a CI run scans: repository, branch, commit, pull request, run) from
 * GitHub Actions' or GitLab CI's environment, and from --branch, --commit and --pr, which win over the
 * environment (docs/ci.md lists what is read from where). A value the environment gives that the server
 * would refuse (a branch name git would not take, say) is left out with a note; a flag's is a usage error.
 */
import { branchNameProblem, COMMIT_PATTERN, PR_PATTERN, shortBranch, type ScanCi } from '../domain/ci.js';
import { UsageError } from './usage-error.js';

type Env = Readonly<Record<string, string | undefined>>;

const val = (env: Env, name: string): string | undefined => {
  const v = env[name]?.trim();
  return v ? v : undefined;
};

/** GitHub Actions (GITHUB_ACTIONS=true): https://docs.github.com/actions/learn-github-actions/variables#default-environment-variables */
function fromGithub(env: Env): ScanCi {
  const server = (val(env, 'GITHUB_SERVER_URL') ?? 'https://github.com').replace(/\/+$/, '');
  const repository = val(env, 'GITHUB_REPOSITORY');
  const runId = val(env, 'GITHUB_RUN_ID');
  const pr = /^refs\/pull\/(\d+)\/(merge|head)$/.exec(val(env, 'GITHUB_REF') ?? '')?.[1];
  // A pull request's run is on refs/pull/N/merge (GITHUB_REF_NAME "N/merge"): its branch is the head branch.
  const tag = val(env, 'GITHUB_REF_TYPE') === 'tag';
  const branch = val(env, 'GITHUB_HEAD_REF') ?? (pr || tag ? undefined : val(env, 'GITHUB_REF_NAME'));
  return {
    provider: 'github',
    ...(repository ? { repository, repository_url: `${server}/${repository}` } : {}),
    ...(branch ? { branch } : {}),
    ...(val(env, 'GITHUB_BASE_REF') ? { base_branch: val(env, 'GITHUB_BASE_REF') } : {}),
    ...(val(env, 'GITHUB_SHA') ? { commit: val(env, 'GITHUB_SHA') } : {}),
    ...(pr ? { pr } : {}),
    ...(repository && runId ? { run_url: `${server}/${repository}/actions/runs/${runId}` } : {}),
  };
}

/** GitLab CI (GITLAB_CI=true): https://docs.gitlab.com/ci/variables/predefined_variables/ */
function fromGitlab(env: Env): ScanCi {
  const tag = val(env, 'CI_COMMIT_TAG') !== undefined;
  const branch = val(env, 'CI_MERGE_REQUEST_SOURCE_BRANCH_NAME') ?? val(env, 'CI_COMMIT_BRANCH') ?? (tag ? undefined : val(env, 'CI_COMMIT_REF_NAME'));
  return {
    provider: 'gitlab',
    ...(val(env, 'CI_PROJECT_PATH') ? { repository: val(env, 'CI_PROJECT_PATH') } : {}),
    ...(val(env, 'CI_PROJECT_URL') ? { repository_url: val(env, 'CI_PROJECT_URL') } : {}),
    ...(branch ? { branch } : {}),
    ...(val(env, 'CI_MERGE_REQUEST_TARGET_BRANCH_NAME') ? { base_branch: val(env, 'CI_MERGE_REQUEST_TARGET_BRANCH_NAME') } : {}),
    ...(val(env, 'CI_COMMIT_SHA') ? { commit: val(env, 'CI_COMMIT_SHA') } : {}),
    ...(val(env, 'CI_MERGE_REQUEST_IID') ? { pr: val(env, 'CI_MERGE_REQUEST_IID') } : {}),
    ...((val(env, 'CI_JOB_URL') ?? val(env, 'CI_PIPELINE_URL')) ? { run_url: val(env, 'CI_JOB_URL') ?? val(env, 'CI_PIPELINE_URL') } : {}),
  };
}

/** What the CI's environment says, or undefined outside GitHub Actions and GitLab CI. */
export function ciFromEnv(env: Env): ScanCi | undefined {
  if (val(env, 'GITHUB_ACTIONS') === 'true') return fromGithub(env);
  if (val(env, 'GITLAB_CI') === 'true') return fromGitlab(env);
  return undefined;
}

/** Why a field's value would be refused by the server, or undefined. */
function problem(field: keyof ScanCi, value: string): string | undefined {
  if (field === 'branch' || field === 'base_branch') return branchNameProblem(shortBranch(value));
  if (field === 'commit') return new RegExp(COMMIT_PATTERN).test(value) ? undefined : 'must be 7 to 64 hex characters';
  if (field === 'pr') return new RegExp(PR_PATTERN).test(value) ? undefined : 'must be a number or an id of letters, digits and . _ - # !';
  if (field === 'repository_url' || field === 'run_url')
    return /^https?:\/\/[^\s/]+/i.test(value) && value.length <= 2048 ? undefined : 'must be an absolute http or https URL';
  return undefined;
}

/**
 * The scan's `ci`: the environment's (unless `readEnv` is false) with the flags over it. Undefined when
 * neither says anything. Flags are checked (UsageError); environment values that would be refused are
 * dropped, each with a note on `note`.
 */
export function ciMetadata(
  flags: { branch?: string; commit?: string; pr?: string },
  env: Env,
  readEnv: boolean,
  note: (line: string) => void = () => {},
): ScanCi | undefined {
  const fromEnv = readEnv ? ciFromEnv(env) : undefined;
  const out: ScanCi = {};
  for (const [field, value] of Object.entries(fromEnv ?? {}) as Array<[keyof ScanCi, string]>) {
    const p = problem(field, value);
    if (p) note(`note: ${field} "${value}" from the CI environment left out of the scan's CI metadata: it ${p}\n`);
    else out[field] = field === 'branch' || field === 'base_branch' ? shortBranch(value) : field === 'commit' ? value.toLowerCase() : value;
  }
  for (const [field, value] of Object.entries(flags) as Array<['branch' | 'commit' | 'pr', string | undefined]>) {
    if (value === undefined) continue;
    const p = problem(field, value);
    if (p) throw new UsageError(`--${field} "${value}" ${p}`);
    out[field] = field === 'branch' ? shortBranch(value) : field === 'commit' ? value.toLowerCase() : value;
  }
  if (Object.keys(out).length === 0) return undefined;
  return { ...(fromEnv ? {} : { provider: 'cli' }), ...out };
}
