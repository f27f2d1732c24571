import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { AgentProgram } from '../runs/agent-process.js';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Where a program would be found (PATH lookup for a bare name), or undefined
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
  if (program.file.includes('/') || isAbsolute(program.file)) return executable(program.file) ? program.file : undefined;
  for (const dir of (pathVariable ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, program.file);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}
