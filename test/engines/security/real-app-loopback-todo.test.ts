/**
 * A real application as target: @loopback/example-todo 6.0.0 (npm; LoopBack 4's tutorial app by
 * IBM, nobody here wrote it), which serves its own OpenAPI document at /openapi.json: the scan
 * reads the spec from the app itself. It has no authentication (every operation is public by
 * design of the tutorial), an in-memory datasource persisted to ./data/db.json in a temporary
 * directory, and a geocoder that calls the US Census web service when a todo has a remindAtAddress
 * (bound here to a stand-in on loopback: test/fixtures/real-apps/loopback-todo.ts). The app as the
 * corpus runs it (test/corpus/apps.ts, unpatched).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineOutcome } from '../../../src/domain/scan.js';
import { loopbackTodo } from '../../corpus/apps.js';
import { findingsOf, scanTarget, startVariant } from '../../corpus/run.js';
import { describeFindings, highFindings, notTestedByReason, passedOnUnreached, reachedOperations, summaryLine, type RealApp } from './real-apps.js';

const PACKAGE_DIR = loopbackTodo.source;

describe('@loopback/example-todo 6.0.0 as a scan target', () => {
  let app: RealApp;
  let outcome: EngineOutcome;

  beforeAll(async () => {
    const running = await startVariant(loopbackTodo);
    app = running.target;
    outcome = await scanTarget(app.url, running.setup);
    console.log(summaryLine('@loopback/example-todo 6.0.0', outcome));
  }, 300_000);
  afterAll(async () => app?.close());

  it('leaves the app usable: it answers, serves its document, and the seeded todos are still there', async () => {
    expect(outcome.security!.target_down).toBeUndefined();
    const list = await fetch(`${app.url}/todos`);
    expect(list.status).toBe(200);
    const todos = (await list.json()) as { id: number; title: string }[];
    // The package's seed (data/db.json) has todos 1-4: the scan deletes only what it created, and its writes to the whole
    // collection (PATCH /todos, which updates every todo its `where` matches) are limited to a todo it created.
    const seed = JSON.parse(readFileSync(join(PACKAGE_DIR, 'data/db.json'), 'utf8')).models.Todo as Record<string, string>;
    const seeded = Object.values(seed).map((row) => JSON.parse(row) as { id: number; title: string });
    expect(seeded).toHaveLength(4);
    for (const s of seeded) expect(todos.find((t) => t.id === s.id)?.title, `todo ${s.id}`).toBe(s.title);
    expect((await fetch(`${app.url}/openapi.json`)).status).toBe(200);
    // Every resource the scan could identify was deleted (after waiting for the app to work through the scan's large
    // writes); one whose create answer carried no id (its body over the engine's response cap) is listed, not hidden.
    expect((outcome.security!.coverage.resources_left ?? []).filter((r) => r.id !== undefined)).toEqual([]);
  });

  it('raises no high or critical finding: the app has none to find', () => {
    // A public tutorial API with no authentication: its CORS answer (`*` with allow-credentials, LoopBack's default)
    // is refused by browsers for credentialed requests and there is no credential to steal; no other check found more than medium.
    const high = highFindings(outcome);
    expect(high, describeFindings(high)).toEqual([]);
    const cors = outcome.tasks.find((t) => t.status === 'failed' && /CORS allows arbitrary origins/.test(t.name));
    expect(cors?.evidence).toContain('access-control-allow-origin: *');
    expect(outcome.tasks.filter((t) => t.status === 'failed' && /stopped answering/.test(t.name))).toEqual([]);
    // The corpus's flaws are not found on the unpatched app (this scan is their twin's: real-app-corpus.test.ts does not repeat
    // it): the strict Todo model answers 422 to undeclared properties.
    for (const flaw of loopbackTodo.flaws) expect(findingsOf(outcome, flaw), `${flaw.id}: ${describeFindings(findingsOf(outcome, flaw))}`).toEqual([]);
  });

  it('sends no oversized body to PATCH /todos, which updates every todo at once (the seeded ones included)', () => {
    expect(outcome.tasks.filter((t) => t.check === 'resource-consumption' && t.endpoint === 'PATCH /todos' && /Oversized request body/.test(t.name))).toEqual(
      [],
    );
    expect(
      outcome.tasks.filter((t) => t.check === 'resource-consumption' && t.endpoint === 'PATCH /todos/{id}' && /Oversized request body/.test(t.name)),
    ).toHaveLength(1);
  });

  it('reports coverage honestly: no pass without a 2xx, every operation not reached says why', () => {
    expect(passedOnUnreached(outcome)).toEqual([]);
    const cov = outcome.security!.coverage;
    const reached = reachedOperations(outcome);
    // Reads and updates of the seeded todos answer 2xx.
    expect([...reached].sort()).toEqual(
      expect.arrayContaining(['DELETE /todos/{id}', 'GET /todos', 'GET /todos/count', 'GET /todos/{id}', 'PATCH /todos', 'PATCH /todos/{id}', 'POST /todos']),
    );
    // The scan creates todos (their remindAtAddress geocoded by the loopback stand-in) and deletes only those.
    for (const op of cov.operations.filter((o) => !reached.has(o.endpoint))) {
      const reasons = cov.checks.flatMap((c) => c.not_run.filter((n) => n.endpoints.includes(op.endpoint)).map((n) => n.reason));
      expect(
        reasons.some((r) => /^(every attempt answered|no attempt answered 2xx)/.test(r)),
        `${op.endpoint}:\n${reasons.join('\n')}`,
      ).toBe(true);
    }
    const reasons = notTestedByReason(outcome);
    expect(reasons['no second identity (auth.secondary)']).toBeGreaterThan(0);
    expect(Object.keys(reasons).filter((r) => /stopped answering|stopped being accepted/.test(r))).toEqual([]);
  });
});
