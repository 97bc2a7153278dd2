import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Tests that measure pages in Chromium (load times, Core Web Vitals, axe in frames, budgets of
 * `options.timeout`): they run after everything else, one file at a time, so what they measure is the
 * page and not another test file's browser or server competing for the two cores.
 */
const BROWSER_MEASUREMENTS = ['test/engines/functional/**/*.test.ts', 'test/e2e/functional-scan.test.ts'];

/** Pure unit tests (no server, browser, database or child process): `npm run test:unit` runs them in seconds. */
export const UNIT = ['test/domain', 'test/architecture', 'test/app'];

/**
 * The unit tests, and test/engines, which tests the scan engines alone against fixture targets: no
 * store, queue, limiter or event bus is ever opened there (test/architecture/store-independent.test.ts
 * keeps it so). Their code paths are the same whatever DATABASE_URL and REDIS_URL say, so the
 * distributed run (either set) leaves them to the embedded run instead of running the same code twice.
 */
export const STORE_INDEPENDENT = [...UNIT, 'test/engines'];
const files = (dirs: string[]) => dirs.map((dir) => `${dir}/**/*.test.ts`);
const distributed = Boolean(process.env.DATABASE_URL || process.env.REDIS_URL);

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    // Every response a test receives from a Vigil server is checked against its OpenAPI document.
    setupFiles: ['test/helpers/openapi-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits for something to happen (a page to render, a row to be written); vitest's own 1 s
    // default is a timing margin that a loaded 2-core machine misses (a dashboard heading once took longer).
    expect: { poll: { timeout: 20_000 } },
    pool: 'forks',
    reporters: process.env.VIGIL_TEST_REPORT ? ['default', 'json'] : ['default'],
    outputFile: process.env.VIGIL_TEST_REPORT ? { json: process.env.VIGIL_TEST_REPORT } : undefined,
    projects: [
      // In the distributed run the unit tests are the embedded run's.
      ...(distributed ? [] : [{ extends: true as const, test: { name: 'unit', include: files(UNIT), maxWorkers: 2, sequence: { groupOrder: 0 } } }]),
      {
        extends: true,
        test: {
          name: 'server',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...BROWSER_MEASUREMENTS, ...files(UNIT), ...(distributed ? files(STORE_INDEPENDENT) : [])],
          // Two cores: more workers only add contention with the servers and browsers the tests start.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: BROWSER_MEASUREMENTS,
          exclude: [...configDefaults.exclude, ...(distributed ? files(STORE_INDEPENDENT) : [])],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
