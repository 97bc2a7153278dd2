/**
 * What the CLI makes of the security section: SARIF rules that explain their check, one location per
 * affected operation, warnings as tool notifications; JUnit failures with remediation and affected
 * operations; warnings printed; and the second-identity and safe-mode flags reaching the engine.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanInput } from '../../src/domain/scan.js';
import { toJunit } from '../../src/reports/junit.js';
import { toSarif } from '../../src/reports/sarif.js';
import { notTestedLines, notTestedSummary } from '../../src/reports/not-tested.js';
import { runVigil } from '../helpers/process.js';
import { securityEngine } from '../helpers/security-outcome-engine.js';
import { startServer, storeLabel, type TestServer } from '../helpers/server.js';
import { testEngine } from '../helpers/test-engine.js';
import { securityOutcome, securityReport } from '../reports/fixtures.js';

const schema = JSON.parse(readFileSync(new URL('../fixtures/schemas/sarif-schema-2.1.0.json', import.meta.url), 'utf8'));
const ajv = new AjvDraft04Module.default({ allErrors: true, strict: false, unicodeRegExp: false });
addFormatsModule.default(ajv);
const validateSarif = ajv.compile(schema);

/** A completed results body with the security section, as GET /scan/{id}/results returns it. */
function resultsBody() {
  const report = securityReport();
  const security = securityOutcome();
  return { ...report, warnings: security.warnings, security };
}

describe('SARIF from the security section', () => {
  const body = resultsBody();
  const sarif = toSarif(body);
  const run = sarif.runs[0];

  it('validates against the SARIF 2.1.0 schema', () => {
    expect(validateSarif(sarif), JSON.stringify(validateSarif.errors)).toBe(true);
  });

  it('rules carry the check title, description, remediation, OWASP link, tags and security-severity', () => {
    const bola = run.tool.driver.rules.find((r: { id: string }) => r.id === 'bola');
    const info = body.security.checks.find((c) => c.id === 'bola')!;
    expect(bola.shortDescription).toEqual({ text: info.title });
    expect(bola.fullDescription).toEqual({ text: info.description });
    expect(bola.helpUri).toBe(info.owasp.url);
    expect(bola.help.text).toContain(info.remediation);
    expect(bola.help.text).toContain(info.cwe.url);
    expect(bola.help.markdown).toContain('**Remediation.**');
    expect(bola.help.markdown).toContain(`[CWE-639](<${info.cwe.url}>)`);
    expect(bola.properties.tags).toEqual(['security', 'API1:2023', 'CWE-639']);
    expect(bola.properties['security-severity']).toBe('9.5');
    // A hostile remediation is escaped markdown; a javascript: reference is never a link.
    const sqli = run.tool.driver.rules.find((r: { id: string }) => r.id === 'sqli');
    expect(sqli.help.markdown).not.toContain('](<javascript:');
    expect(sqli.help.markdown).toContain('\\<script\\>');
    // One rule per check, whatever the number of findings; security-severity is the worst of them.
    const ids = run.tool.driver.rules.map((r: { id: string }) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    const headers = run.tool.driver.rules.find((r: { id: string }) => r.id === 'headers');
    expect(headers.properties['security-severity']).toBe('3.0');
    // Rules without a catalogue entry keep the task's name and a CWE link.
    const fuzz = run.tool.driver.rules.find((r: { id: string }) => r.id === 'fuzz');
    expect(fuzz.help).toBeUndefined();
    expect(fuzz.helpUri).toBe('https://cwe.mitre.org/data/definitions/116.html');
  });

  it('a finding of the whole target has one location per affected operation; others have one', () => {
    const headers = run.results.find((r: { properties: { task_id: string } }) => r.properties.task_id === 'tsk_21');
    const task = body.tasks.find((t) => t.task_id === 'tsk_21')!;
    expect(headers.locations).toHaveLength(task.endpoints!.length);
    expect(headers.locations.map((l: { logicalLocations: Array<{ name: string }> }) => l.logicalLocations[0]!.name)).toEqual(task.endpoints);
    expect(headers.locations[0].physicalLocation.artifactLocation.uri).toBe('api.shop.example/v2/orders');
    expect(headers.locations[1].physicalLocation.artifactLocation.uri).toBe('api.shop.example/v2/orders/%7Bid%7D');
    expect(headers.message.text).toContain('on 4 operations');
    expect(run.tool.driver.rules[headers.ruleIndex].id).toBe('headers');
    const bola = run.results.find((r: { properties: { task_id: string } }) => r.properties.task_id === 'tsk_01');
    expect(bola.locations).toHaveLength(1);
    expect(run.results).toHaveLength(body.tasks.filter((t) => t.status === 'failed').length);
  });

  it('what was not tested, then the warnings, are tool execution notifications of the invocation', () => {
    const untested = notTestedLines(notTestedSummary(body));
    expect(untested[0]).toMatch(/^Not tested: /);
    expect(run.invocations[0].toolExecutionNotifications).toEqual([...untested, ...body.warnings].map((text) => ({ level: 'warning', message: { text } })));
    expect(run.invocations[0].properties).toMatchObject({ operations_2xx: 3, operations_total: 29 });
    const old = toSarif({ ...securityReport(), warnings: [], security: null });
    expect(old.runs[0].invocations[0].toolExecutionNotifications).toBeUndefined();
    expect(validateSarif(old), JSON.stringify(validateSarif.errors)).toBe(true);
  });
});

describe('JUnit from the security section', () => {
  it('failures name the check, its remediation and every affected operation; warnings go to system-out', () => {
    const body = resultsBody();
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(toJunit(body));
    const suite = parsed.testsuites.testsuite;
    const headers = suite.testcase.find((c: { name: string }) => c.name === 'Security headers: 4 operations');
    const text = String(headers.failure['#text']);
    expect(text).toContain('Check: Security headers (headers)');
    expect(text).toContain('Endpoints (4): GET /orders, GET /orders/{id}, POST /orders, GET /echo/<script>');
    expect(text).toContain('Remediation: Send X-Content-Type-Options: nosniff');
    expect(String(suite['system-out'])).toContain('warning: 3 of 29 operations answered 2xx: is the base URL right?');
  });
});

describe(`vigil scan: second identity, safe mode and warnings (${storeLabel})`, () => {
  let server: TestServer;
  let env: Record<string, string>;
  const inputs: ScanInput[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'vigil-cli-sec-'));

  beforeAll(async () => {
    server = await startServer({ engines: { security: securityEngine(inputs), functional: testEngine('functional') } });
    const { apiKey } = await server.createTenant('enterprise');
    env = { VIGIL_URL: server.vigil.url!, VIGIL_API_KEY: apiKey };
  });
  afterAll(async () => server?.stop());

  async function vigil(args: string[]) {
    const p = runVigil(args, env);
    const code = await p.exited;
    return { code, out: p.output() };
  }

  it('maps --auth2-* to auth.secondary and --safe-mode to options.safe_mode, prints the warnings, writes SARIF with the catalogue', async () => {
    const sarifFile = join(dir, 'out.sarif');
    const { code, out } = await vigil([
      'scan',
      'http://target.test/cli',
      '--token',
      'alice-token',
      '--auth2-username',
      'bob',
      '--auth2-password',
      'bob-pw',
      '--safe-mode',
      '--poll-interval',
      '0.1',
      '--output',
      sarifFile,
    ]);
    expect(code, out).toBe(0);
    const input = inputs[inputs.length - 1]!;
    expect(input.auth).toEqual({ type: 'bearer', token: 'alice-token', secondary: { type: 'basic', username: 'bob', password: 'bob-pw' } });
    expect(input.options.safe_mode).toBe(true);
    expect(out).toMatch(/^warning: 0 of 3 operations answered 2xx: is the base URL right\?$/m);
    const sarif = JSON.parse(readFileSync(sarifFile, 'utf8'));
    expect(validateSarif(sarif), JSON.stringify(validateSarif.errors)).toBe(true);
    expect(sarif.runs[0].tool.driver.rules[0]).toMatchObject({
      id: 'headers',
      shortDescription: { text: 'Security headers' },
      helpUri: 'https://owasp.org/API-Security/editions/2023/en/0xa8-security-misconfiguration/',
    });
    expect(sarif.runs[0].results[0].locations).toHaveLength(2);
    const notifications: string[] = sarif.runs[0].invocations[0].toolExecutionNotifications.map((n: { message: { text: string } }) => n.message.text);
    expect(notifications[0]).toMatch(/^Not tested: 3 of 3 operations never answered 2xx/);
    expect(notifications.slice(-2)).toEqual(['0 of 3 operations answered 2xx: is the base URL right?', expect.any(String)]);
  });

  it('every second-identity flag, oauth2 included, and the upload path', async () => {
    const spec = join(dir, 'openapi.json');
    writeFileSync(spec, JSON.stringify({ openapi: '3.0.0', info: { title: 't', version: '1' }, paths: {} }));
    const { code, out } = await vigil([
      'scan',
      'http://target.test/upload',
      '--spec',
      spec,
      '--auth-type',
      'header',
      '--header-name',
      'X-Key',
      '--header-value',
      'k1',
      '--auth2-oauth2-token-url',
      'http://idp.test/token',
      '--auth2-oauth2-client-id',
      'cid',
      '--auth2-oauth2-client-secret',
      'csecret',
      '--auth2-oauth2-scope',
      'read',
      '--poll-interval',
      '0.1',
      '--json',
    ]);
    expect(code, out).toBe(0);
    const input = inputs[inputs.length - 1]!;
    expect(input.auth).toEqual({
      type: 'header',
      header_name: 'X-Key',
      header_value: 'k1',
      secondary: { type: 'oauth2', oauth2_token_url: 'http://idp.test/token', oauth2_client_id: 'cid', oauth2_client_secret: 'csecret', oauth2_scope: 'read' },
    });
    expect(input.options.safe_mode).toBe(false);
    expect(JSON.parse(out.slice(out.indexOf('{'))).warnings).toHaveLength(2);
    const typed = await vigil([
      'scan',
      'http://target.test/typed',
      '--token',
      'tok-typed-1',
      '--auth2-type',
      'header',
      '--auth2-header-name',
      'X-Key',
      '--auth2-header-value',
      'k2',
      '--poll-interval',
      '0.1',
    ]);
    expect(typed.code, typed.out).toBe(0);
    expect(inputs[inputs.length - 1]!.auth?.secondary).toEqual({ type: 'header', header_name: 'X-Key', header_value: 'k2' });
  });

  it('identities that log in: --login-* flags (type inferred), the password grant, and auth.login in the config file with env:NAME passwords', async () => {
    const flags = await vigil([
      'scan',
      'http://target.test/login',
      '--username',
      'alice',
      '--password',
      'alice-pw',
      '--login-operation',
      'auth_login_create',
      '--login-token-pointer',
      '/token',
      '--login-send-scheme',
      'Token',
      '--auth2-type',
      'oauth2',
      '--auth2-oauth2-grant-type',
      'password',
      '--auth2-oauth2-token-url',
      'http://idp.test/oauth/token',
      '--auth2-username',
      'bob',
      '--auth2-password',
      'bob-pw',
      '--poll-interval',
      '0.1',
    ]);
    expect(flags.code, flags.out).toBe(0);
    expect(inputs[inputs.length - 1]!.auth).toEqual({
      type: 'login',
      username: 'alice',
      password: 'alice-pw',
      login: { operation: 'auth_login_create', token_pointer: '/token', send_scheme: 'Token' },
      secondary: { type: 'oauth2', oauth2_grant_type: 'password', oauth2_token_url: 'http://idp.test/oauth/token', username: 'bob', password: 'bob-pw' },
    });
    const cwd = mkdtempSync(join(tmpdir(), 'vigil-cli-login-'));
    writeFileSync(
      join(cwd, 'vigil.config.yaml'),
      [
        'target: http://target.test/config-login',
        'auth:',
        '  type: login',
        '  username: alice@example.com',
        '  password: env:ALICE_PASSWORD',
        '  login:',
        '    url: /api/session',
        '    method: POST',
        '    username_field: email',
        '    token_cookie: connect.sid',
        '    csrf_url: /api/csrf-token',
        '    csrf_cookie: XSRF-TOKEN',
        '    csrf_header: X-XSRF-TOKEN',
        '',
      ].join('\n'),
    );
    const literal = mkdtempSync(join(tmpdir(), 'vigil-cli-login-'));
    writeFileSync(
      join(literal, 'vigil.config.yaml'),
      'target: http://target.test/x\nauth:\n  type: login\n  username: a\n  password: plain-text\n  login:\n    url: /login\n',
    );
    const fromFile = runVigil(['scan', '--poll-interval', '0.1'], { ...env, ALICE_PASSWORD: 'alice-from-env' }, { cwd });
    expect(await fromFile.exited, fromFile.output()).toBe(0);
    expect(inputs[inputs.length - 1]!.auth).toEqual({
      type: 'login',
      username: 'alice@example.com',
      password: 'alice-from-env',
      login: {
        url: '/api/session',
        method: 'POST',
        username_field: 'email',
        token_cookie: 'connect.sid',
        csrf_url: '/api/csrf-token',
        csrf_cookie: 'XSRF-TOKEN',
        csrf_header: 'X-XSRF-TOKEN',
      },
    });
    // A flag overrides the whole identity of the file; a literal password in the file is refused.
    const over = runVigil(['scan', '--token', 'flag-token', '--poll-interval', '0.1'], { ...env, ALICE_PASSWORD: 'x' }, { cwd });
    expect(await over.exited, over.output()).toBe(0);
    expect(inputs[inputs.length - 1]!.auth).toEqual({ type: 'bearer', token: 'flag-token' });
    const refused = runVigil(['scan'], env, { cwd: literal });
    expect(await refused.exited).toBe(3);
    expect(refused.output()).toMatch(/auth\.password holds a literal secret/);
  });

  it('refuses a second identity without a first, and an unknown --auth2-type, as usage errors (exit 3)', async () => {
    const before = inputs.length;
    const alone = await vigil(['scan', 'http://target.test/', '--auth2-token', 'b']);
    expect(alone.code).toBe(3);
    expect(alone.out).toMatch(/--auth2-\* flags describe a second identity/);
    expect((await vigil(['scan', 'http://target.test/', '--auth-type', 'none', '--auth2-token', 'b'])).code).toBe(3);
    expect((await vigil(['scan', 'http://target.test/', '--token', 'a', '--auth2-type', 'none'])).code).toBe(3);
    expect((await vigil(['scan', 'http://target.test/', '--token', 'a', '--auth2-header-value', 'v'])).code).toBe(3);
    expect(inputs.length).toBe(before);
  });
});
