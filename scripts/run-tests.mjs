#!/usr/bin/env node
// Runs the whole test suite with vitest and ends with the line CI reads:
// `N passed, N failed` (the runner's own totals, skipped ones named too).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'svc-vitest-'));
const report = join(dir, 'report.json');
const run = spawnSync(
  process.execPath,
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);

let totals;
try {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  // A file that fails outside any test (an import error, a failing hook) counts as one failure;
  // files whose failure is already a failed test are not counted twice.
  const brokenFiles = (json.testResults ?? []).filter(
    (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
  ).length;
  totals = { passed: json.numPassedTests, failed: json.numFailedTests + brokenFiles, skipped: json.numPendingTests + json.numTodoTests };
} catch {
  totals = undefined;
}
rmSync(dir, { recursive: true, force: true });

if (!totals) {
  console.log('0 passed, 1 failed');
  process.exit(run.status || 1);
}
const skipped = totals.skipped ? `, ${totals.skipped} skipped` : '';
console.log(`${totals.passed} passed, ${totals.failed} failed${skipped}`);
process.exit(run.status ?? 1);
