import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

// The browser tests run against the built app (dist/web/studio), as the
// studio serves it. A missing or stale build (a source newer than the built
// index.html) is rebuilt once; test files running in parallel wait for it.

const ROOT = resolve(import.meta.dirname, '../..');
export const WEB_DIR = join(ROOT, 'dist', 'web', 'studio');
const SOURCES = [join(ROOT, 'web', 'studio'), join(ROOT, 'web', 'shared'), join(ROOT, 'src', 'studio', 'api'), join(ROOT, 'web', 'tsconfig.json'), join(ROOT, 'scripts', 'build-web.mjs')];
const LOCK = join(ROOT, 'dist', '.web-studio-build.lock');
/** A lock older than this was left by a killed run. */
const STALE_LOCK_MS = 120_000;

function newestMtime(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) if (entry !== 'node_modules') newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

const built = (): number => statSync(join(WEB_DIR, 'index.html'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
const isStale = (): boolean => built() < Math.max(...SOURCES.map(newestMtime));

function tryLock(): boolean {
  try {
    mkdirSync(LOCK, { recursive: false });
    return true;
  } catch {
    const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
    return false;
  }
}

/** Builds web/studio into dist/web/studio unless the build is up to date. */
export async function ensureStudioBuild(): Promise<void> {
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  while (isStale()) {
    if (!tryLock()) {
      // Another test file is building: wait for it, then look again.
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      if (!isStale()) break;
      const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-web.mjs'), 'studio'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
      if (run.status !== 0) throw new Error(`node scripts/build-web.mjs studio failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}
