import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// Issue 46, item 7: the README's `npx svc …` runs the built program and leaves dist/ alone. npx
// links the checkout into its cache and runs its `prepare` script there; that script built the
// whole project (tsc, bundle, three Vite builds), rewriting dist/ under a running studio. A checkout
// made of this package.json, its lockfile, bin/ and the prepare script, with a stand-in built
// program: its first `npx svc --version` (a fresh npx cache, offline) must run that program and
// leave dist/ as it was (the old script, with no sources to build here, failed outright).

const root = join(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'svc-npx-checkout-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A checkout after `npm ci`: node_modules in place, dist/ built (here: a stand-in), its times in the past. */
function checkout(): { dir: string; built: string } {
  const dir = join(work, 'checkout');
  for (const sub of ['bin', 'scripts', 'dist/bundle']) mkdirSync(join(dir, sub), { recursive: true });
  for (const file of ['package.json', 'package-lock.json', 'bin/svc.js', 'bin/svc-chat.js', 'scripts/prepare.mjs'])
    copyFileSync(join(root, file), join(dir, file));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  const built = join(dir, 'dist/bundle/svc.js');
  writeFileSync(built, 'console.log("svc (the built program)");\n');
  const past = new Date('2020-01-01T00:00:00Z');
  for (const path of [built, join(dir, 'dist/bundle'), join(dir, 'dist')]) utimesSync(path, past, past);
  return { dir, built };
}

describe('npx svc in a checkout', () => {
  it('runs the built program and leaves dist/ untouched on its first call', () => {
    const { dir, built } = checkout();
    const before = [built, join(dir, 'dist/bundle'), join(dir, 'dist')].map((path) => statSync(path).mtimeMs);
    const run = spawnSync('npx', ['svc', '--version'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        npm_config_cache: join(work, 'npm-cache'),
        npm_config_offline: 'true',
        npm_config_update_notifier: 'false',
      },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('svc (the built program)');
    expect([built, join(dir, 'dist/bundle'), join(dir, 'dist')].map((path) => statSync(path).mtimeMs)).toEqual(before);
    expect(readFileSync(built, 'utf8')).toBe('console.log("svc (the built program)");\n');
  }, 150_000);

  it('npm ci still builds: prepare runs the build for every npm command but exec', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(manifest.scripts.prepare).toBe('node scripts/prepare.mjs');
    expect(readFileSync(join(root, 'scripts/prepare.mjs'), 'utf8')).toMatch(/'run', 'build'/);
  });

  it("the README's test command does not run npm ci a second time", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm run setup:system && npm test');
    expect(readme).not.toContain('npm ci && npm test');
  });
});
