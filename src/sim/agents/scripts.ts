import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Absolute path of a fake agent program (`fake-agent-a.mjs`...). The scripts
 * are plain JavaScript that `tsc` does not copy, so when this module runs from
 * dist/sim/agents they are found in the checkout's src/sim/agents.
 */
export function fakeAgentScript(fileName: string): string {
  const beside = join(here, fileName);
  if (existsSync(beside)) return beside;
  const inSource = resolve(here, '..', '..', '..', 'src', 'sim', 'agents', fileName);
  if (existsSync(inSource)) return inSource;
  throw new Error(`Fake agent program ${fileName} not found next to ${here} or in src/sim/agents.`);
}
