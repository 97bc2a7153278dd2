/**
 * `vigil scan` sends what the CI run scans (`ci`): read from GitHub Actions' and GitLab CI's environment,
 * overridden by --branch, --commit and --pr, left out with --no-ci; the real CLI against a real server,
 * which stores it and returns it; the SARIF the CLI writes names the commit (versionControlProvenance).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ciFromEnv } from '../../src/cli/ci-env.js';
import { runVigil } from '../helpers/process.js';
import { call, startServer, storeLabel, type TestServer } from '../helpers/server.js';
import { gateEngines } from './gate-engine.js';

/** Every variable the CLI reads, blank: the test's own CI (this suite may run in GitHub Actions) must not leak into a case. */
const NO_CI = Object.fromEntries(
  [
    'GITHUB_ACTIONS',
    'GITHUB_REF',
    'GITHUB_REF_NAME',
    'GITHUB_REF_TYPE',
    'GITHUB_HEAD_REF',
    'GITHUB_BASE_REF',
    'GITHUB_SHA',
    'GITHUB_REPOSITORY',
    'GITHUB_SERVER_URL',
    'GITHUB_RUN_ID',
    'GITLAB_CI',
    'CI_COMMIT_REF_NAME',
    'CI_COMMIT_BRANCH',
    'CI_COMMIT_TAG',
    'CI_COMMIT_SHA',
    'CI_MERGE_REQUEST_IID',
    'CI_MERGE_REQUEST_SOURCE_BRANCH_NAME',
    'CI_MERGE_REQUEST_TARGET_BRANCH_NAME',
    'CI_PROJECT_URL',
    'CI_PROJECT_PATH',
    'CI_JOB_URL',
    'CI_PIPELINE_URL',
  ].map((name) => [name, '']),
);

const SHA = '9fceb02d0ae598e95dc970b74767f19372d61af8';
const GITHUB_PR = {
  GITHUB_ACTIONS: 'true',
  GITHUB_REF: 'refs/pull/7/merge',
  GITHUB_REF_NAME: '7/merge',
  GITHUB_HEAD_REF: 'feature/login',
  GITHUB_BASE_REF: 'main',
  GITHUB_SHA: SHA,
  GITHUB_REPOSITORY: 'acme/shop',
  GITHUB_SERVER_URL: 'https://github.com',
  GITHUB_RUN_ID: '9876',
};
const GITLAB_MR = {
  GITLAB_CI: 'true',
  CI_COMMIT_REF_NAME: 'fix/cart',
  CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'fix/cart',
  CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'develop',
  CI_COMMIT_SHA: 'e83c5163316f89bfbde7d9ab23ca2e25604af290',
  CI_MERGE_REQUEST_IID: '15',
  CI_PROJECT_PATH: 'group/shop',
  CI_PROJECT_URL: 'https://gitlab.example.com/group/shop',
  CI_JOB_URL: 'https://gitlab.example.com/group/shop/-/jobs/555',
};

describe('CI metadata from the environment (no server)', () => {
  it('a GitHub push: the branch from GITHUB_REF_NAME, no pull request; a tag names no branch', () => {
    const push = {
      ...NO_CI,
      GITHUB_ACTIONS: 'true',
      GITHUB_REF: 'refs/heads/main',
      GITHUB_REF_NAME: 'main',
      GITHUB_SHA: SHA,
      GITHUB_REPOSITORY: 'acme/shop',
      GITHUB_RUN_ID: '1',
    };
    expect(ciFromEnv(push)).toEqual({
      provider: 'github',
      repository: 'acme/shop',
      repository_url: 'https://github.com/acme/shop',
      branch: 'main',
      commit: SHA,
      run_url: 'https://github.com/acme/shop/actions/runs/1',
    });
    expect(ciFromEnv({ ...push, GITHUB_REF: 'refs/tags/v1.0', GITHUB_REF_NAME: 'v1.0', GITHUB_REF_TYPE: 'tag' })).not.toHaveProperty('branch');
    expect(ciFromEnv(NO_CI)).toBeUndefined();
  });
});

describe(`vigil scan sends CI metadata (${storeLabel})`, () => {
  let server: TestServer;
  let apiKey: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startServer({ engines: gateEngines() });
    ({ apiKey } = await server.createTenant('enterprise'));
    env = { ...NO_CI, VIGIL_URL: server.vigil.url!, VIGIL_API_KEY: apiKey };
  });
  afterAll(async () => server?.stop());

  /** Starts a scan with --no-wait and returns the `ci` the server stored for it. */
  async function started(args: string[], extraEnv: Record<string, string>): Promise<{ code: number | null; out: string; ci?: unknown }> {
    const p = runVigil(['scan', 'http://api.test/?findings=high', '--no-wait', ...args], { ...env, ...extraEnv });
    const code = await p.exited;
    const out = p.output();
    const id = /^scn_[A-Za-z0-9_-]+$/m.exec(out)?.[0];
    if (code !== 0 || !id) return { code, out };
    const status = await call(`${server.api}/scan/${id}`, { headers: { 'X-API-Key': apiKey } });
    return { code, out, ci: status.body.ci };
  }

  it('in a GitHub Actions pull request run: head branch, base branch, commit, PR number, repository and run', async () => {
    const r = await started([], GITHUB_PR);
    expect(r.code, r.out).toBe(0);
    expect(r.ci).toEqual({
      provider: 'github',
      repository: 'acme/shop',
      repository_url: 'https://github.com/acme/shop',
      branch: 'feature/login',
      base_branch: 'main',
      commit: SHA,
      pr: '7',
      run_url: 'https://github.com/acme/shop/actions/runs/9876',
    });
    expect(r.out).toContain('branch feature/login · commit 9fceb02d0ae5 · PR #7');
  });

  it('in a GitLab merge request pipeline: source and target branches, commit, MR iid, project and job', async () => {
    const r = await started([], GITLAB_MR);
    expect(r.code, r.out).toBe(0);
    expect(r.ci).toEqual({
      provider: 'gitlab',
      repository: 'group/shop',
      repository_url: 'https://gitlab.example.com/group/shop',
      branch: 'fix/cart',
      base_branch: 'develop',
      commit: GITLAB_MR.CI_COMMIT_SHA,
      pr: '15',
      run_url: GITLAB_MR.CI_JOB_URL,
    });
  });

  it('flags win over the environment; flags alone are provider cli; --no-ci reads nothing', async () => {
    const over = await started(['--branch', 'release/2.0', '--commit', 'ABCDEF1', '--pr', '99'], GITHUB_PR);
    expect(over.ci).toMatchObject({ provider: 'github', repository: 'acme/shop', branch: 'release/2.0', commit: 'abcdef1', pr: '99' });
    const flags = await started(['--branch', 'refs/heads/main', '--commit', SHA], {});
    expect(flags.ci).toEqual({ provider: 'cli', branch: 'main', commit: SHA });
    const none = await started(['--no-ci'], GITHUB_PR);
    expect(none.code, none.out).toBe(0);
    expect(none.ci).toBeUndefined();
    const outside = await started([], {});
    expect(outside.ci).toBeUndefined();
  });

  it('a bad --commit is a usage error (exit 3) before any scan; a bad environment value is left out with a note', async () => {
    const bad = await started(['--commit', 'not-a-sha'], {});
    expect(bad.code).toBe(3);
    expect(bad.out).toContain('--commit "not-a-sha" must be 7 to 64 hex characters');
    const odd = await started([], { ...GITHUB_PR, GITHUB_HEAD_REF: 'bad..branch' });
    expect(odd.code, odd.out).toBe(0);
    expect(odd.out).toContain('note: branch "bad..branch" from the CI environment left out');
    expect(odd.ci).toMatchObject({ commit: SHA, pr: '7' });
    expect(odd.ci).not.toHaveProperty('branch');
  });

  it('the SARIF the CLI writes names the repository, commit and branch (versionControlProvenance)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'vigil-ci-sarif-'));
    const p = runVigil(
      ['scan', 'http://api.test/?findings=low', '--poll-interval', '0.1', '--output', 'out.sarif', '--output', 'out.xml'],
      { ...env, ...GITHUB_PR },
      { cwd },
    );
    const code = await p.exited;
    expect(code, p.output()).toBe(0);
    const sarif = JSON.parse(readFileSync(join(cwd, 'out.sarif'), 'utf8'));
    expect(sarif.runs[0].versionControlProvenance).toEqual([{ repositoryUri: 'https://github.com/acme/shop', revisionId: SHA, branch: 'feature/login' }]);
    expect(readFileSync(join(cwd, 'out.xml'), 'utf8')).toContain('<property name="vigil.ci.pr" value="7"/>');
  });
});
