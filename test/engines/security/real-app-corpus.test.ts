/**
 * The corpus of real shapes in CI (a subset; `npm run bench security-corpus` runs it all): for each
 * app of another framework than the npm ones, some injected flaws and the unpatched twin. A flaw
 * removes an authorization check of the app's own code (test/corpus/apps.ts); the scan must find it
 * on the right operation with the right check, and raise no high or critical finding on the twin.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CORPUS } from '../../corpus/apps.js';
import { coverageOf, findingsOf, scanVariant, twinHighs, type VariantRun } from '../../corpus/run.js';
import { describeFindings, passedOnUnreached } from './real-apps.js';

const SUBSET: Record<string, string[]> = {
  'drf-tutorial': ['snippet-owner-check'],
  'fastapi-fullstack': ['item-read-owner-check', 'users-me-allowlist', 'users-list-role-check'],
  'json-server-auth': ['notes-write-guard'],
  'loopback-todo': ['todo-strict-mode'],
};

/**
 * The npm apps' twins are scanned by their own real-app tests (real-app-json-server-auth.test.ts,
 * real-app-loopback-todo.test.ts), which assert the same of them (no high or critical finding but the app's
 * true ones, no finding of any of its flaws, no pass where nothing was reached): not scanned twice.
 */
const TWIN_TESTED_ELSEWHERE = new Set(['json-server-auth', 'loopback-todo']);

/**
 * Flaws whose finding is medium by the engine's rule: a list showing another identity's record that the item read
 * refuses, when the items name no owner (the users list of users-list-role-check), is medium, not high; so are
 * privileged properties stored on a resource that is not an account (a todo: todo-strict-mode).
 */
const MEDIUM_IS_THE_RULE = new Set(['users-list-role-check', 'todo-strict-mode']);

for (const app of CORPUS.filter((a) => SUBSET[a.name])) {
  const flaws = app.flaws.filter((f) => SUBSET[app.name]!.includes(f.id));

  describe(`corpus: ${app.name} (${app.framework})`, () => {
    const runs: VariantRun[] = [];
    afterAll(() => {
      for (const r of runs)
        console.log(`${app.name}: ${coverageOf(r.outcome).reached}/${coverageOf(r.outcome).total} operations reached 2xx in ${r.seconds.toFixed(0)} s`);
    });

    it.each(flaws)(
      'finds the injected flaw $id ($removes)',
      async (flaw) => {
        const run = await scanVariant(app, flaw);
        runs.push(run);
        expect(run.outcome.security!.target_down).toBeUndefined();
        const failed = run.outcome.tasks.filter((t) => t.status === 'failed');
        const found = findingsOf(run.outcome, flaw);
        expect(found.length, describeFindings(failed)).toBeGreaterThan(0);
        if (!MEDIUM_IS_THE_RULE.has(flaw.id)) expect(found.some((t) => t.severity === 'high' || t.severity === 'critical')).toBe(true);
      },
      300_000,
    );

    if (!TWIN_TESTED_ELSEWHERE.has(app.name))
      it('raises no high or critical finding on the unpatched twin, no finding of the flaws, and no pass where nothing was reached', async () => {
        const run = await scanVariant(app);
        runs.push(run);
        expect(twinHighs(run.outcome, app)).toEqual([]);
        for (const flaw of flaws) expect(findingsOf(run.outcome, flaw), describeFindings(findingsOf(run.outcome, flaw))).toEqual([]);
        // Coverage on the twin depends on the machine (on a loaded CI machine the DRF twin once reached 7 of its 9
        // operations): what must hold is that nothing passed where no request reached the code it tests.
        expect(passedOnUnreached(run.outcome)).toEqual([]);
      }, 300_000);
  });
}
