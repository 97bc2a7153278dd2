import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Tests that measure pages in Chromium (load times, Core Web Vitals, axe in frames, budgets of
 * `options.timeout`): they run after everything else, one file at a time, so what they measure is the
 * page and not another test file's browser or server competing for the two cores.
 */
const BROWSER_MEASUREMENTS = ['test/engines/functional/**/*.test.ts', 'test/e2e/functional-scan.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    // Every response a test receives from a Vigil server is checked against its OpenAPI document.
    setupFiles: ['test/helpers/openapi-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: process.env.VIGIL_TEST_REPORT ? ['default', 'json'] : ['default'],
    outputFile: process.env.VIGIL_TEST_REPORT ? { json: process.env.VIGIL_TEST_REPORT } : undefined,
    projects: [
      {
        extends: true,
        test: {
          name: 'server',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...BROWSER_MEASUREMENTS],
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
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
