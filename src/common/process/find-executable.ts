import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    // A directory is "executable" (searchable) too; only a regular file can be run.
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The one PATH lookup rule of every program we start (agent programs, the
 * `cligen` generator): a name with a slash is a path (relative to `cwd`) and
 * is used as it is; a bare name is searched in the directories of
 * `pathVariable` in order, skipping empty entries (an empty entry would mean
 * the current directory, which must never be searched implicitly). The answer
 * is the first regular file with execute permission, or undefined.
 */
export function findExecutable(program: string, pathVariable: string | undefined, cwd: string = process.cwd()): string | undefined {
  if (program === '') return undefined;
  if (isAbsolute(program) || program.includes('/')) {
    const path = resolve(cwd, program);
    return isExecutableFile(path) ? path : undefined;
  }
  for (const dir of (pathVariable ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, program);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
