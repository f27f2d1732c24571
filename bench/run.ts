// Runs every benchmark under bench/ one after another (each in its own
// process, so they never share a core), or only those named on the command line.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = import.meta.dirname;
const wanted = process.argv.slice(2);
const benches = readdirSync(dir)
  .filter((name) => name.endsWith('.ts') && name !== 'run.ts')
  .filter((name) => wanted.length === 0 || wanted.includes(name.replace(/\.ts$/, '')));

let failed = 0;
for (const name of benches) {
  process.stdout.write(`\n=== bench/${name}\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(dir, name)], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exit(failed ? 1 : 0);
