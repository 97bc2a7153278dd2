import { describe, expect, it } from 'vitest';
import { branchNameProblem, ciSummary, commitUrl, pullRequestUrl, shortBranch } from '../../src/domain/ci.js';

describe('CI metadata rules', () => {
  it.each(['main', 'feature/login', 'release/2.0', 'dependabot/npm_and_yarn/vite-5.4.1', 'user@host', 'a+b', 'fix-#12', 'über'])(
    'takes %s as a branch name',
    (name) => {
      expect(branchNameProblem(name)).toBeUndefined();
    },
  );

  it.each([
    ['', 'empty'],
    ['a'.repeat(256), 'longer than 255'],
    ['my branch', 'spaces'],
    ['a~1', '~'],
    ['a^', '^'],
    ['a:b', ':'],
    ['a?b', '?'],
    ['a*b', '*'],
    ['a[b', '['],
    ['a\\b', '\\'],
    ['a..b', '".."'],
    ['a@{1}', '"@{"'],
    ['a//b', '"//"'],
    ['-main', 'start with -'],
    ['/main', 'start with -'],
    ['main/', 'end with /'],
    ['main.', 'end with /'],
    ['main.lock', '.lock'],
    ['feature/.hidden', 'component starting with .'],
    ['@', '@ alone'],
    ['a\u0007b', 'control'],
  ])('refuses %j as a branch name (git check-ref-format)', (name, why) => {
    expect(branchNameProblem(name)).toContain(why);
  });

  it('drops refs/heads/ only', () => {
    expect(shortBranch('refs/heads/feature/x')).toBe('feature/x');
    expect(shortBranch('refs/tags/v1')).toBe('refs/tags/v1');
  });

  it('links a pull request and a commit only where the provider and repository address are known', () => {
    const github = { provider: 'github', repository_url: 'https://github.com/acme/shop/', commit: 'abcdef1', pr: '7' };
    expect(pullRequestUrl(github)).toBe('https://github.com/acme/shop/pull/7');
    expect(commitUrl(github)).toBe('https://github.com/acme/shop/commit/abcdef1');
    const gitlab = { ...github, provider: 'gitlab', repository_url: 'https://gitlab.example.com/g/shop' };
    expect(pullRequestUrl(gitlab)).toBe('https://gitlab.example.com/g/shop/-/merge_requests/7');
    expect(commitUrl(gitlab)).toBe('https://gitlab.example.com/g/shop/-/commit/abcdef1');
    expect(pullRequestUrl({ ...github, provider: 'jenkins' })).toBeUndefined();
    expect(pullRequestUrl({ ...github, pr: '!7x' })).toBeUndefined();
    expect(pullRequestUrl({ provider: 'github', pr: '7' })).toBeUndefined();
    expect(ciSummary(gitlab)).toBe('commit abcdef1 · MR !7');
    expect(ciSummary({ repository: 'acme/shop', branch: 'main', commit: '9fceb02d0ae598e95dc970b74767f19372d61af8', pr: '7', provider: 'github' })).toBe(
      'acme/shop · branch main · commit 9fceb02d0ae5 · PR #7',
    );
    expect(ciSummary({})).toBeUndefined();
  });
});
