/**
 * Vitest setup file (every test file): checks each response from a Vigil server against its OpenAPI
 * document (see openapi-responses.ts) and, when the file ends, reports how many were checked and fails
 * the file on any mismatch. VIGIL_OPENAPI_REPORT=<file> appends one JSON line per test file (for totals).
 */
import { appendFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';
import { installResponseCheck, settleResponseChecks, tally } from './openapi-responses.js';

installResponseCheck();

afterAll(async () => {
  await settleResponseChecks();
  if (tally.validated === 0 && tally.mismatches.length === 0) return;
  const file = expect.getState().testPath ?? '';
  const line = {
    file: file.replace(/^.*?\/test\//, 'test/'),
    validated: tally.validated,
    undocumented_paths: tally.undocumentedPaths,
    mismatches: tally.mismatches,
  };
  if (process.env.VIGIL_OPENAPI_REPORT) appendFileSync(process.env.VIGIL_OPENAPI_REPORT, `${JSON.stringify(line)}\n`);
  console.log(`[openapi] ${line.file}: ${tally.validated} responses validated against /api/v1/openapi.json, ${tally.mismatches.length} mismatches`);
  // Grouped so one wrong schema reads as one problem with its count, not hundreds of lines.
  const grouped = new Map<string, number>();
  for (const m of tally.mismatches) {
    const key = `${m.request} ${m.status}: ${m.problem}`;
    grouped.set(key, (grouped.get(key) ?? 0) + 1);
  }
  expect([...grouped].map(([problem, count]) => `${count}x ${problem}`)).toEqual([]);
});
