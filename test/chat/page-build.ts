import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

// The chat page's browser tests run against the built page (dist/web/chat), as
// `svc-chat serve` serves it. A missing or stale build (a source newer than
// the built index.html) is rebuilt once; test files running in parallel wait
// for it (the same scheme as test/web/build.ts for the studio).

const ROOT = resolve(import.meta.dirname, '../..');
const WEB_DIR = join(ROOT, 'dist', 'web', 'chat');
const SOURCES = [join(ROOT, 'web', 'chat'), join(ROOT, 'web', 'shared'), join(ROOT, 'src', 'chat', 'contract.ts'), join(ROOT, 'web', 'tsconfig.json'), join(ROOT, 'scripts', 'build-web.mjs')];
const LOCK = join(ROOT, 'dist', '.web-chat-build.lock');
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

/** Builds web/chat into dist/web/chat unless the build is up to date. */
export async function ensureChatBuild(): Promise<void> {
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  while (isStale()) {
    if (!tryLock()) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      if (!isStale()) break;
      const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-web.mjs'), 'chat'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
      if (run.status !== 0) throw new Error(`node scripts/build-web.mjs chat failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}
