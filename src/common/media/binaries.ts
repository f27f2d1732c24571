import { createRequire } from 'node:module';
import { findExecutable } from '../process/index.js';

// Where ffmpeg and ffprobe come from: SVC_FFMPEG / SVC_FFPROBE when set (a
// path or a name on PATH), else the Debian programs on PATH (`.ci/run` and
// `npm run setup:system` install them), else the static binaries the npm
// packages @ffmpeg-installer/ffmpeg and @ffprobe-installer/ffprobe ship in
// their platform packages (fetched from the npm registry by `npm ci`, no
// download at install time), so `npm ci` alone gives a working install.

export type MediaTool = 'ffmpeg' | 'ffprobe';

/** Each tool's override variable and npm package (whose `path` export names its binary). */
const TOOLS: Readonly<Record<MediaTool, { readonly env: string; readonly npmPackage: string }>> = {
  ffmpeg: { env: 'SVC_FFMPEG', npmPackage: '@ffmpeg-installer/ffmpeg' },
  ffprobe: { env: 'SVC_FFPROBE', npmPackage: '@ffprobe-installer/ffprobe' },
};

export interface LocatedTool {
  readonly path: string;
  readonly source: 'env' | 'path' | 'npm';
}

const require = createRequire(import.meta.url);

/** The binary an npm package ships for this platform; undefined when the package or its platform part is missing. */
function npmBinary(npmPackage: string): string | undefined {
  try {
    const loaded = require(npmPackage) as { path?: unknown };
    return typeof loaded.path === 'string' ? findExecutable(loaded.path, undefined) : undefined;
  } catch {
    return undefined;
  }
}

const located = new Map<string, LocatedTool | undefined>();

/** The program to run for `tool` with this environment; undefined when there is none (FFMPEG_UNAVAILABLE). */
export function locateTool(tool: MediaTool, env: Readonly<Record<string, string | undefined>> = process.env): LocatedTool | undefined {
  const { env: variable, npmPackage } = TOOLS[tool];
  const key = `${tool}\u0000${env[variable] ?? ''}\u0000${env.PATH ?? ''}`;
  if (located.has(key)) return located.get(key);
  const override = env[variable];
  let found: LocatedTool | undefined;
  if (override) {
    const path = findExecutable(override, env.PATH);
    found = path ? { path, source: 'env' } : undefined;
  } else {
    const onPath = findExecutable(tool, env.PATH);
    const shipped = onPath ? undefined : npmBinary(npmPackage);
    found = onPath ? { path: onPath, source: 'path' } : shipped ? { path: shipped, source: 'npm' } : undefined;
  }
  located.set(key, found);
  return found;
}
