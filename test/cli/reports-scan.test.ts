/**
 * The three CI outputs of one real scan: `vigil scan` (a child process) against a real server with
 * the real security engine, scanning the deliberately vulnerable fixture API with its OpenAPI
 * document as a local YAML file in a repository checkout. The SARIF validates against the OASIS
 * schema and GitHub's documented rules, every security result points at the line of its own
 * operation in the spec (`paths: /x: get:`), fingerprints are the same in a second scan, the JUnit
 * has unique testcases per check and operation, and the HTML groups the findings by check.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { fixtureSpec, startFixture, TOKENS, type Fixture } from '../fixtures/vulnerable-api/server.js';
import { runVigil } from '../helpers/process.js';
import { startServer, storeLabel, type TestServer } from '../helpers/server.js';

const schema = JSON.parse(readFileSync(new URL('../fixtures/schemas/sarif-schema-2.1.0.json', import.meta.url), 'utf8'));
const ajv = new AjvDraft04Module.default({ allErrors: true, strict: false, unicodeRegExp: false });
addFormatsModule.default(ajv);
const validateSarif = ajv.compile(schema);

type Json = Record<string, any>;

describe(`vigil scan --spec <local file>: SARIF on the spec lines, JUnit and HTML of a real scan (${storeLabel})`, () => {
  let fixture: Fixture;
  let server: TestServer;
  let apiKey: string;
  let repo: string;
  let specText: string;

  beforeAll(async () => {
    fixture = await startFixture();
    server = await startServer({ engines: 'real' });
    ({ apiKey } = await server.createTenant('enterprise'));
    repo = mkdtempSync(join(tmpdir(), 'vigil-repo-'));
    mkdirSync(join(repo, '.git'));
    mkdirSync(join(repo, 'api'));
    specText = stringify(fixtureSpec('vuln', `${fixture.url}/vuln`));
    writeFileSync(join(repo, 'api', 'openapi.yaml'), specText);
  });
  afterAll(async () => {
    await server?.stop();
    await fixture?.close();
  });

  async function scan(tag: string) {
    const out = (f: string) => join(repo, `${tag}-${f}`);
    const p = runVigil(
      [
        'scan',
        `${fixture.url}/vuln`,
        '--spec',
        'api/openapi.yaml',
        '--token',
        TOKENS.vuln.alice,
        '--auth2-token',
        TOKENS.vuln.bob,
        '--fail-on',
        'high',
        '--poll-interval',
        '0.2',
        '--output',
        out('vigil.sarif'),
        '--output',
        out('junit.xml'),
        '--output',
        out('report.html'),
      ],
      { VIGIL_URL: server.vigil.url!, VIGIL_API_KEY: apiKey },
      { cwd: repo },
    );
    const code = await p.exited;
    return {
      code,
      output: p.output(),
      sarif: JSON.parse(readFileSync(out('vigil.sarif'), 'utf8')) as Json,
      junit: readFileSync(out('junit.xml'), 'utf8'),
      html: readFileSync(out('report.html'), 'utf8'),
    };
  }

  it('SARIF: valid, on the operation lines of api/openapi.yaml, stable fingerprints; JUnit and HTML follow', async () => {
    const first = await scan('one');
    expect(first.code, first.output).toBe(1);
    const { sarif } = first;
    expect(validateSarif(sarif), JSON.stringify(validateSarif.errors?.slice(0, 3))).toBe(true);
    const run = sarif.runs[0];
    const rules: Json[] = run.tool.driver.rules;
    const results: Json[] = run.results;
    const security = results.filter((r) => rules[r.ruleIndex].properties.tags.includes('security'));
    expect(security.length).toBeGreaterThan(0);
    const lines = specText.split('\n');
    let onOperation = 0;
    for (const r of results) {
      expect(rules[r.ruleIndex].id).toBe(r.ruleId);
      expect(Object.keys(r.partialFingerprints)).toEqual(['vigilFinding/v1']);
      expect(['error', 'warning', 'note']).toContain(r.level);
    }
    for (const r of security) {
      expect(Number(r.properties['security-severity'])).toBeGreaterThanOrEqual(0);
      for (const loc of r.locations as Json[]) {
        expect(loc.physicalLocation.artifactLocation).toEqual({ uri: 'api/openapi.yaml', uriBaseId: '%SRCROOT%' });
        const line = loc.physicalLocation.region.startLine as number;
        expect(line).toBeGreaterThanOrEqual(1);
        const operation = loc.logicalLocations?.[0]?.name as string | undefined;
        if (!operation) continue;
        // The line is `<method>:` under `<path>:`, both as the spec file writes them; a path the spec
        // does not have (a probe such as GET /.env) lands on `paths:`.
        const [method, path] = operation.split(' ');
        const documented = (fixtureSpec('vuln').paths as Record<string, Record<string, unknown>>)[path!]?.[method!.toLowerCase()] !== undefined;
        if (!documented) {
          expect(lines[line - 1], `${operation} -> line ${line}`).toBe('paths:');
          continue;
        }
        onOperation += 1;
        expect(lines[line - 1]!.trim(), `${operation} -> line ${line}`).toBe(`${method!.toLowerCase()}:`);
        const pathLine = lines
          .slice(0, line - 1)
          .reverse()
          .find((l) => /^ {2}\S/.test(l))!;
        expect(pathLine.trim().replace(/^["']|["']?:$/g, '')).toBe(path);
      }
    }
    expect(onOperation).toBeGreaterThan(0);
    // Distinct findings are distinct alerts: a fingerprint repeats only for tasks with the same title on the same operation.
    const byFingerprint = new Map<string, Set<string>>();
    for (const r of results) {
      const title = String(r.message.text).split(' on ')[0]!;
      byFingerprint.set(r.partialFingerprints['vigilFinding/v1'], new Set([...(byFingerprint.get(r.partialFingerprints['vigilFinding/v1']) ?? []), title]));
    }
    for (const [fp, titles] of byFingerprint) expect(titles.size, `${fp}: ${[...titles].join(' | ')}`).toBe(1);
    // Rules explain their check.
    for (const rule of rules.filter((x) => x.properties.tags.includes('security'))) {
      expect(rule.fullDescription.text.length).toBeGreaterThan(0);
      expect(rule.help.text).toMatch(/Remediation: /);
      expect(rule.properties['security-severity']).toMatch(/^\d+\.\d$/);
    }

    // A second scan of the same API: the same findings have the same fingerprints (task ids differ).
    const second = await scan('two');
    expect(second.code).toBe(1);
    const fps = (s: Json) => new Set((s.runs[0].results as Json[]).map((r) => `${r.ruleId} ${r.partialFingerprints['vigilFinding/v1']}`));
    const a = fps(sarif);
    const b = fps(second.sarif);
    const shared = [...a].filter((x) => b.has(x));
    expect(shared.length, `${[...a].join('\n')}\n---\n${[...b].join('\n')}`).toBeGreaterThanOrEqual(Math.min(a.size, b.size) - 1);

    // JUnit: unique testcases, failures with evidence.
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => ['testsuite', 'testcase', 'failure'].includes(n) }).parse(
      first.junit,
    );
    const cases: Json[] = doc.testsuites.testsuite.flatMap((s: Json) => s.testcase ?? []);
    const keys = cases.map((c) => `${c.classname} ${c.name}`);
    expect(new Set(keys).size).toBe(keys.length);
    const failed = cases.filter((c) => c.failure);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.some((c) => String(c.failure[0]['#text']).includes('Evidence:'))).toBe(true);

    // HTML: findings grouped by check, each check once.
    const groups = [...first.html.matchAll(/<section class="finding-group[^"]*" data-check="([^"]*)"/g)].map((m) => m[1]);
    expect(groups.length).toBeGreaterThan(0);
    expect(new Set(groups).size).toBe(groups.length);
  }, 600_000);
});
