/**
 * The corpus of real shapes in CI (a subset; `npm run bench security-corpus` runs it all): for each
 * app of another framework than the npm ones, one injected flaw and its unpatched twin. The flaw
 * removes an authorization check of the app's own code (test/corpus/apps.ts); the scan must find it
 * on the right operation with the right check, and raise no high or critical finding on the twin.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CORPUS } from '../../corpus/apps.js';
import { coverageOf, findingsOf, scanVariant, twinHighs, type VariantRun } from '../../corpus/run.js';
import { describeFindings } from './real-apps.js';

const SUBSET: Record<string, string[]> = {
  'drf-tutorial': ['snippet-owner-check'],
  'fastapi-fullstack': ['item-read-owner-check', 'users-me-allowlist', 'users-list-role-check'],
};

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
        expect(findingsOf(run.outcome, flaw).length, describeFindings(failed)).toBeGreaterThan(0);
        expect(findingsOf(run.outcome, flaw).some((t) => t.severity === 'high' || t.severity === 'critical')).toBe(true);
      },
      300_000,
    );

    it('raises no high or critical finding on the unpatched twin, and reaches the operations of the flaws', async () => {
      const run = await scanVariant(app);
      runs.push(run);
      expect(twinHighs(run.outcome)).toEqual([]);
      // The twin is where the flaw's operations answer their owner: the scan reached them.
      const reached = run.outcome.security!.coverage.operations.filter((o) => o.reached_2xx.primary).map((o) => o.endpoint);
      for (const flaw of flaws) {
        expect(reached).toEqual(expect.arrayContaining(flaw.endpoints.slice(0, 1)));
        expect(findingsOf(run.outcome, flaw), describeFindings(findingsOf(run.outcome, flaw))).toEqual([]);
      }
    }, 300_000);
  });
}
