#!/usr/bin/env node
// Totals vitest JSON reports (one per run) into "N passed, N failed[, N skipped]".
import { existsSync, readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
let found = 0;
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    console.error(`missing report ${file}`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  found += 1;
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
  // A file whose set-up failed (or that failed to load) reports its tests as skipped or none at all:
  // every test it could not run counts as failed.
  for (const file of report.testResults ?? []) {
    const results = file.assertionResults ?? [];
    if (file.status !== 'failed' || results.some((r) => r.status === 'failed')) continue;
    const notRun = results.filter((r) => r.status === 'pending' || r.status === 'skipped' || r.status === 'todo').length;
    skipped -= notRun;
    failed += Math.max(1, notRun);
  }
}
if (found === 0) process.exit(1);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
