import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: more workers only add contention with the servers and browsers the tests start.
    maxWorkers: 2,
    reporters: process.env.VIGIL_TEST_REPORT ? ['default', 'json'] : ['default'],
    outputFile: process.env.VIGIL_TEST_REPORT ? { json: process.env.VIGIL_TEST_REPORT } : undefined,
  },
});
