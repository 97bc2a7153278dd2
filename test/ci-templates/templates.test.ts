import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startSite } from '../fixtures/site/server.js';
import { fixtureSpec, startFixture, TOKENS, type Fixture } from '../fixtures/vulnerable-api/server.js';
import { startServer, storeLabel, type TestServer } from '../helpers/server.js';
import { OFFLINE_NPM_ENV, packClient, ROOT, type PackedClient } from '../client-package/pack.js';
import { readTemplate, runGithubJob, runGitlabJob, type GithubStep, type StepRun } from './run-steps.js';

/**
 * The CI templates of examples/ci, as a team copies them: their shell steps run with bash against
 * a real Vigil server (real security engine) scanning the deliberately vulnerable fixture API, with
 * the client package installed from its tarball by the template's own install step. The exit codes
 * are the ones docs/ci.md gives: 1 (red build) on the vulnerable side, 0 on its fixed twin, 2 when
 * the target cannot be reached; the files the templates upload exist and are what they claim.
 */
describe(`CI templates run against a real server (${storeLabel})`, () => {
  let fixture: Fixture;
  let site: Awaited<ReturnType<typeof startSite>>;
  let server: TestServer;
  let apiKey: string;
  let client: PackedClient;

  beforeAll(async () => {
    client = packClient();
    // The server serves the client package it was built with (npm run build packs it there): the templates install it from GET /cli/vigil-cli.tgz.
    mkdirSync(join(ROOT, 'dist/cli-package'), { recursive: true });
    copyFileSync(client.tarball, join(ROOT, 'dist/cli-package/vigil-cli.tgz'));
    fixture = await startFixture();
    site = await startSite();
    site.setLayout(0);
    server = await startServer({ engines: 'real' });
    ({ apiKey } = await server.createTenant('enterprise'));
  });
  afterAll(async () => {
    await server?.stop();
    await fixture?.close();
    await new Promise((r) => site?.server.close(r));
  });

  /** A checkout of a team's repository: its OpenAPI document at the path the templates expect. */
  function workspace(side: 'vuln' | 'fixed') {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-ci-'));
    writeFileSync(join(dir, 'openapi.yaml'), stringify(fixtureSpec(side, `${fixture.url}/${side}`)));
    const prefix = join(dir, '.npm-global');
    const home = join(dir, '.home');
    mkdirSync(home);
    for (const f of ['summary.md', 'output', 'env']) writeFileSync(join(dir, `.github-${f}`), '');
    const baseEnv: Record<string, string> = {
      PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
      HOME: home,
      CI: 'true',
      ...OFFLINE_NPM_ENV,
      npm_config_prefix: prefix,
      npm_config_cache: join(home, '.npm'),
      GITHUB_STEP_SUMMARY: join(dir, '.github-summary.md'),
      GITHUB_OUTPUT: join(dir, '.github-output'),
      GITHUB_ENV: join(dir, '.github-env'),
      RUNNER_TEMP: mkdtempSync(join(tmpdir(), 'vigil-runner-temp-')),
    };
    return { dir, baseEnv };
  }

  /** What the team configures in CI (secrets and variables); the CLI comes from the server (no pinned checksum: the server's own). */
  function provided(target: string, side: 'vuln' | 'fixed'): Record<string, string> {
    return {
      VIGIL_CLI_SHA256: '',
      VIGIL_URL: server.vigil.url!,
      VIGIL_API_KEY: apiKey,
      VIGIL_TARGET_URL: target,
      TARGET_TOKEN: TOKENS[side].alice,
      TARGET_TOKEN_2: TOKENS[side].bob,
    };
  }

  const describeRuns = (runs: StepRun[]) => runs.map((r) => `--- ${r.name} (exit ${r.code})\n${r.output}`).join('\n');

  function expectJunit(file: string) {
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(file, 'utf8'));
    const suites = [parsed.testsuites?.testsuite ?? parsed.testsuite].flat();
    expect(suites.length).toBeGreaterThan(0);
    const cases = suites.flatMap((s: any) => [s.testcase ?? []].flat());
    expect(cases.length).toBeGreaterThan(0);
    return { cases, failures: cases.filter((c: any) => c.failure) };
  }

  it('GitHub Actions: the scan step fails the build (exit 1) on the vulnerable API; the SARIF, JUnit and HTML it hands to the upload steps exist', async () => {
    const workflow = readTemplate(ROOT, 'examples/ci/github-actions.yml');
    const job = workflow.jobs.vigil as { env: Record<string, unknown>; steps: GithubStep[] };
    // Secrets and variables reach the scripts through env, never as ${{ }} inside a script.
    for (const step of job.steps) if (step.run) expect(step.run, step.name).not.toContain('${{');
    expect(workflow.permissions['security-events']).toBe('write');

    const { dir, baseEnv } = workspace('vuln');
    const runs = await runGithubJob(job, workflow.env, { cwd: dir, baseEnv, provided: provided(`${fixture.url}/vuln`, 'vuln') });
    const scan = runs.find((r) => r.name === 'Scan');
    expect(scan, describeRuns(runs)).toBeDefined();
    expect(
      runs.slice(0, -1).every((r) => r.code === 0),
      describeRuns(runs),
    ).toBe(true);
    expect(scan!.code, describeRuns(runs)).toBe(1);
    expect(runs.at(-1)).toBe(scan);
    expect(scan!.output).toMatch(/FAILED/);

    // The steps after the scan run on a red build too (`!cancelled()`), when their file is there.
    const after = job.steps.slice(job.steps.findIndex((s) => s.name === 'Scan') + 1);
    expect(after.map((s) => s.uses?.split('@')[0])).toEqual(['github/codeql-action/upload-sarif', 'mikepenz/action-junit-report', 'actions/upload-artifact']);
    for (const step of after) expect(step.if, step.name).toContain('!cancelled()');

    const sarifStep = after[0]!;
    const sarifFile = join(dir, String(sarifStep.with!.sarif_file));
    expect(existsSync(sarifFile)).toBe(true);
    const sarif = JSON.parse(readFileSync(sarifFile, 'utf8'));
    expect(sarif.version).toBe('2.1.0');
    const results = sarif.runs[0].results as any[];
    expect(results.length).toBeGreaterThan(0);
    expect(results.some((r) => r.level === 'error')).toBe(true);
    // Alerts land on the spec in the repository: the operation's line in openapi.yaml.
    const onSpec = results.filter((r) => r.locations?.[0]?.physicalLocation?.artifactLocation?.uri === 'openapi.yaml');
    expect(onSpec.length, JSON.stringify(results[0]?.locations)).toBeGreaterThan(0);
    const specLines = readFileSync(join(dir, 'openapi.yaml'), 'utf8').split('\n');
    for (const r of onSpec) {
      const line = r.locations[0].physicalLocation.region?.startLine as number;
      expect(line).toBeGreaterThan(0);
      expect(line).toBeLessThanOrEqual(specLines.length);
    }

    const junit = expectJunit(join(dir, String(after[1]!.with!.report_paths)));
    expect(junit.failures.length).toBeGreaterThan(0);

    const artifacts = String(after[2]!.with!.path)
      .split('\n')
      .map((p) => p.trim())
      .filter(Boolean);
    expect(artifacts).toContain('vigil-report.html');
    for (const file of artifacts) expect(existsSync(join(dir, file)), file).toBe(true);
    expect(readFileSync(join(dir, 'vigil-report.html'), 'utf8')).toMatch(/<html/i);
  }, 300_000);

  it('GitLab CI: the job passes (exit 0) on the fixed twin and leaves its JUnit report and artifacts', async () => {
    const pipeline = readTemplate(ROOT, 'examples/ci/gitlab-ci.yml');
    const job = pipeline.vigil;
    expect(job.artifacts.when).toBe('always');

    const { dir, baseEnv } = workspace('fixed');
    const runs = await runGitlabJob(job, { cwd: dir, baseEnv, provided: provided(`${fixture.url}/fixed`, 'fixed') });
    expect(
      runs.map((r) => r.code),
      describeRuns(runs),
    ).toEqual(runs.map(() => 0));
    expect(runs).toHaveLength(job.before_script.length + job.script.length);
    expect(runs.at(-1)!.output).toMatch(/PASSED/);

    for (const file of job.artifacts.paths as string[]) expect(existsSync(join(dir, file)), file).toBe(true);
    const junit = expectJunit(join(dir, job.artifacts.reports.junit));
    expect(junit.failures).toEqual([]);
  }, 300_000);

  it('GitLab CI: a target that cannot be reached fails the job with exit 2; the JUnit report (collected: when always) says the scan did not complete', async () => {
    const pipeline = readTemplate(ROOT, 'examples/ci/gitlab-ci.yml');
    const { dir, baseEnv } = workspace('fixed');
    // A port nothing listens on (the fixture's server, closed below, is not reused: this is a fresh one).
    const closed = await startFixture();
    const deadUrl = `${closed.url}/fixed`;
    await closed.close();
    writeFileSync(join(dir, 'openapi.yaml'), stringify(fixtureSpec('fixed', deadUrl)));
    const runs = await runGitlabJob(pipeline.vigil, { cwd: dir, baseEnv, provided: provided(deadUrl, 'fixed') });
    expect(runs.at(-1)!.code, describeRuns(runs)).toBe(2);
    expect(
      runs.slice(0, -1).every((r) => r.code === 0),
      describeRuns(runs),
    ).toBe(true);
    expect(pipeline.vigil.artifacts.when).toBe('always');
    const junitFile = join(dir, pipeline.vigil.artifacts.reports.junit);
    expect(existsSync(junitFile), `${describeRuns(runs)}\nfiles: ${readdirSync(dir).join(', ')}`).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junitFile, 'utf8'));
    const cases = [parsed.testsuites?.testsuite ?? parsed.testsuite].flat().flatMap((s: any) => [s.testcase ?? []].flat());
    expect(
      cases.some((c: any) => c.error || c.failure),
      JSON.stringify(cases),
    ).toBe(true);
  }, 300_000);

  it('GitHub Actions: a scan that fails (exit 2) leaves no SARIF, so the upload step, which needs the file, is skipped and no alert is closed', async () => {
    const workflow = readTemplate(ROOT, 'examples/ci/github-actions.yml');
    const job = workflow.jobs.vigil as { env: Record<string, unknown>; steps: GithubStep[] };
    const { dir, baseEnv } = workspace('fixed');
    const closed = await startFixture();
    const deadUrl = `${closed.url}/fixed`;
    await closed.close();
    writeFileSync(join(dir, 'openapi.yaml'), stringify(fixtureSpec('fixed', deadUrl)));
    const upload = job.steps.find((s) => s.uses?.startsWith('github/codeql-action/upload-sarif'))!;
    const sarifFile = join(dir, String(upload.with!.sarif_file));
    // A SARIF left in the workspace by an earlier run (self-hosted runners keep it) must not be uploaded either.
    writeFileSync(sarifFile, JSON.stringify({ version: '2.1.0', runs: [] }));

    const runs = await runGithubJob(job, workflow.env, { cwd: dir, baseEnv, provided: provided(deadUrl, 'fixed') });
    const scan = runs.at(-1)!;
    expect(scan.name, describeRuns(runs)).toBe('Scan');
    expect(scan.code, describeRuns(runs)).toBe(2);
    expect(scan.output).toMatch(/no SARIF written to vigil-results\.sarif: the scan failed/);
    // GitHub runs the upload only when the file is there: it is not.
    expect(upload.if).toContain(`hashFiles('${String(upload.with!.sarif_file)}') != ''`);
    expect(existsSync(sarifFile), readdirSync(dir).join(', ')).toBe(false);
    // The JUnit and HTML reports still say what happened.
    expect(existsSync(join(dir, 'vigil-junit.xml'))).toBe(true);
  }, 300_000);

  it('installs the CLI only from the Vigil server and only when its SHA-256 matches: a pinned checksum of another build stops the job before the scan', async () => {
    for (const text of [readFileSync(join(ROOT, 'examples/ci/github-actions.yml'), 'utf8'), readFileSync(join(ROOT, 'examples/ci/gitlab-ci.yml'), 'utf8')]) {
      expect(text).not.toMatch(/npm install[^\n]*@vigil\/cli/);
      expect(text).toContain('/cli/vigil-cli.tgz');
      expect(text).toContain('sha256sum --check');
    }
    const sha = await (await fetch(`${server.vigil.url}/cli/vigil-cli.tgz.sha256`)).text();
    expect(sha).toMatch(/^[0-9a-f]{64} {2}vigil-cli\.tgz\n$/);
    const pipeline = readTemplate(ROOT, 'examples/ci/gitlab-ci.yml');
    const { dir, baseEnv } = workspace('fixed');
    const runs = await runGitlabJob(pipeline.vigil, {
      cwd: dir,
      baseEnv,
      provided: { ...provided(`${fixture.url}/fixed`, 'fixed'), VIGIL_CLI_SHA256: '0'.repeat(64) },
    });
    const failed = runs.at(-1)!;
    expect(failed.script, describeRuns(runs)).toContain('sha256sum --check');
    expect(failed.code).not.toBe(0);
    expect(runs.some((r) => r.script.startsWith('vigil scan'))).toBe(false);
  }, 300_000);

  /** The functional job's inputs: the web application and its pages instead of an API and its spec. */
  function providedUi(pages: string): Record<string, string> {
    return { VIGIL_CLI_SHA256: '', VIGIL_URL: server.vigil.url!, VIGIL_API_KEY: apiKey, VIGIL_APP_URL: site.url, VIGIL_PAGES: pages };
  }

  it('GitHub Actions, vigil-ui: a page with serious accessibility violations fails the build (exit 1); JUnit and the report are there', async () => {
    const workflow = readTemplate(ROOT, 'examples/ci/github-actions.yml');
    const job = workflow.jobs['vigil-ui'] as { if: string; env: Record<string, unknown>; steps: GithubStep[] };
    expect(job.if).toContain('vars.VIGIL_APP_URL');
    for (const step of job.steps) if (step.run) expect(step.run, step.name).not.toContain('${{');

    const { dir, baseEnv } = workspace('vuln');
    const runs = await runGithubJob(job, workflow.env, { cwd: dir, baseEnv, provided: providedUi('/violations') });
    const scan = runs.at(-1)!;
    expect(scan.name, describeRuns(runs)).toBe('Scan');
    expect(scan.code, describeRuns(runs)).toBe(1);
    expect(
      runs.slice(0, -1).every((r) => r.code === 0),
      describeRuns(runs),
    ).toBe(true);

    const after = job.steps.slice(job.steps.findIndex((s) => s.name === 'Scan') + 1);
    for (const step of after) expect(step.if, step.name).toContain('!cancelled()');
    const junit = expectJunit(join(dir, String(after.find((s) => s.uses?.startsWith('mikepenz/'))!.with!.report_paths)));
    expect(JSON.stringify(junit.failures)).toMatch(/Accessibility[^"]*\/violations/);
    const artifacts = String(after.find((s) => s.uses?.startsWith('actions/upload-artifact'))!.with!.path)
      .split('\n')
      .map((p) => p.trim())
      .filter(Boolean);
    for (const file of artifacts) expect(existsSync(join(dir, file)), file).toBe(true);
  }, 300_000);

  it('GitLab CI, vigil-ui: the first run records the baseline (exit 0), a changed layout then fails the job (exit 1) with the diff image in the report', async () => {
    const pipeline = readTemplate(ROOT, 'examples/ci/gitlab-ci.yml');
    const job = pipeline['vigil-ui'];
    expect(job.rules).toEqual([{ if: '$VIGIL_APP_URL' }]);

    site.setLayout(0);
    const first = workspace('fixed');
    const baseline = await runGitlabJob(job, { cwd: first.dir, baseEnv: first.baseEnv, provided: providedUi('/changing') });
    expect(
      baseline.map((r) => r.code),
      describeRuns(baseline),
    ).toEqual(baseline.map(() => 0));

    site.setLayout(1);
    const second = workspace('fixed');
    const changed = await runGitlabJob(job, { cwd: second.dir, baseEnv: second.baseEnv, provided: providedUi('/changing') });
    expect(changed.at(-1)!.code, describeRuns(changed)).toBe(1);
    expect(changed).toHaveLength(job.before_script.length + job.script.length);
    for (const file of job.artifacts.paths as string[]) expect(existsSync(join(second.dir, file)), file).toBe(true);
    const junit = expectJunit(join(second.dir, job.artifacts.reports.junit));
    expect(junit.failures.length).toBeGreaterThan(0);
    expect(readFileSync(join(second.dir, 'vigil-ui-report.html'), 'utf8')).toContain('data:image/png;base64,');
  }, 300_000);
});
