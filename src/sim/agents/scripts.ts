import { existsSync } from 'node:fs';
import { inCheckout } from '../../common/checkout.js';

/**
 * Absolute path of a fake agent program (`fake-agent-a.mjs`...). The scripts
 * are plain JavaScript that no build copies: they run from the checkout's
 * src/sim/agents whichever layout calls them.
 */
export function fakeAgentScript(fileName: string): string {
  const script = inCheckout('src', 'sim', 'agents', fileName);
  if (!existsSync(script)) throw new Error(`Fake agent program ${fileName} is missing: ${script}.`);
  return script;
}
