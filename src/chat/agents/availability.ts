import { accessSync, constants } from 'node:fs';
import { findExecutable } from '../../common/process/find-executable.js';
import type { AgentProgram } from '../runs/agent-process.js';

/**
 * Where a program would be found (the common PATH lookup rule), or undefined
 * when it is not installed. A script run by Node needs the script to exist.
 */
export function locateProgram(program: AgentProgram, pathVariable: string | undefined): string | undefined {
  const script = program.prefixArgs[0];
  if (script !== undefined) {
    try {
      accessSync(script, constants.R_OK);
      return script;
    } catch {
      return undefined;
    }
  }
  return findExecutable(program.file, pathVariable);
}
