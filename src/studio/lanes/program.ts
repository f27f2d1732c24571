import { accessSync, constants, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { findExecutable } from '../../common/process/index.js';
import type { Credential } from './types.js';

// Where a lane's program is (a `binary` credential), by one rule for the
// lane, its readiness and its remedy: the override variable (an absolute
// path; one that is not there is reported and skipped), then the directories
// the vendor's installers use, then PATH.

export type ProgramCredential = Extract<Credential, { kind: 'binary' }>;

export interface ProgramLookup {
  /** Absolute path of the program, when found. */
  readonly path?: string;
  /** Found through the override or an installer directory (not PATH): its directory goes first on the child's PATH. */
  readonly offPath: boolean;
  /** The override names something that is not an executable file (it was skipped). */
  readonly overrideMissing?: string;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function locateProgram(credential: ProgramCredential, env: Readonly<Record<string, string | undefined>>): ProgramLookup {
  const override = env[credential.overrideEnv];
  let overrideMissing: string | undefined;
  if (override) {
    const path = findExecutable(override, env.PATH);
    if (path) return { path, offPath: true };
    overrideMissing = override;
  }
  const home = env.HOME || homedir();
  for (const dir of credential.installDirs ?? []) {
    const path = join(home, dir, credential.program);
    if (isExecutableFile(path)) return { path, offPath: true, overrideMissing };
  }
  const path = findExecutable(credential.program, env.PATH);
  return { path, offPath: false, overrideMissing };
}

/** Why the program cannot be run, and what to do. */
export function programMissing(credential: ProgramCredential, found: ProgramLookup): string {
  const skipped = found.overrideMissing
    ? ` ${credential.overrideEnv} names "${found.overrideMissing}", which is not an executable file;`
    : '';
  const places = [...(credential.installDirs ?? []).map((dir) => `~/${dir}`), 'PATH'].join(', ');
  return `The program "${credential.program}" is not installed:${skipped} not found in ${places}. Install it or set ${credential.overrideEnv}.`;
}
