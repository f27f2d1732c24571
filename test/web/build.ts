import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

// The browser tests run against a built app (dist/web/<app>), as its server
// serves it. A missing or stale build (a source newer than the built
// index.html) is rebuilt once; test files running in parallel wait for it.

const ROOT = resolve(import.meta.dirname, '../..');
const COMMON_SOURCES = [join(ROOT, 'web', 'shared'), join(ROOT, 'web', 'tsconfig.json'), join(ROOT, 'scripts', 'build-web.mjs')];
/** What each app is built from besides the common sources (its server's contract included). */
const APP_SOURCES = {
  studio: [join(ROOT, 'web', 'studio'), join(ROOT, 'src', 'studio', 'api')],
  chat: [join(ROOT, 'web', 'chat'), join(ROOT, 'src', 'chat', 'contract.ts'), join(ROOT, 'src', 'chat', 'orchestration', 'phases.ts')],
  manager: [join(ROOT, 'web', 'manager'), join(ROOT, 'src', 'manager', 'views.ts')],
} as const;
type App = keyof typeof APP_SOURCES;

export const webDir = (app: App): string => join(ROOT, 'dist', 'web', app);
export const WEB_DIR = webDir('studio');
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

const built = (app: App): number => statSync(join(webDir(app), 'index.html'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
const isStale = (app: App): boolean => built(app) < Math.max(...[...APP_SOURCES[app], ...COMMON_SOURCES].map(newestMtime));

function tryLock(lock: string): boolean {
  try {
    mkdirSync(lock, { recursive: false });
    return true;
  } catch {
    const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

/** Builds web/<app> into dist/web/<app> unless the build is up to date. */
export async function ensureWebBuild(app: App): Promise<void> {
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  const lock = join(ROOT, 'dist', `.web-${app}-build.lock`);
  while (isStale(app)) {
    if (!tryLock(lock)) {
      // Another test file is building: wait for it, then look again.
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      if (!isStale(app)) break;
      const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-web.mjs'), app], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 120_000,
      });
      if (run.status !== 0) throw new Error(`node scripts/build-web.mjs ${app} failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

export const ensureStudioBuild = (): Promise<void> => ensureWebBuild('studio');
export const ensureChatBuild = (): Promise<void> => ensureWebBuild('chat');
export const ensureManagerBuild = (): Promise<void> => ensureWebBuild('manager');
