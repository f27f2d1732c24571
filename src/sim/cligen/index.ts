import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inCheckout } from '../../common/checkout.js';

// The fake of the local generation CLI behind `cligen`: a real program, run as
// a real process by the lane (contracts/cligen-local-cli-artifact.md §6).

/**
 * Absolute path of the fake CLI (an executable script). It is plain JavaScript
 * that no build copies: it runs from the checkout's src/sim/cligen whichever
 * layout calls it.
 */
export function fakeCligenPath(): string {
  const script = inCheckout('src', 'sim', 'cligen', 'fake-cligen.mjs');
  if (!existsSync(script)) throw new Error(`The fake CLI is missing: ${script}.`);
  return script;
}

export interface FakeCligen {
  /** The program to run (SVC_CLIGEN_BIN). */
  readonly program: string;
  /** A private home for it (SVC_CLIGEN_HOME): its artifacts and run log live there, never in the user's home. */
  readonly home: string;
  /** The run log: one JSON line per run (argv, environment names, prompt, references, pids). */
  readonly runLog: string;
  close(): Promise<void>;
}

/** The fake CLI with a fresh private home (removed by `close`). */
export function startFakeCligen(): FakeCligen {
  const home = mkdtempSync(join(tmpdir(), 'svc-fake-cligen-'));
  return {
    program: fakeCligenPath(),
    home,
    runLog: join(home, '.gemini', 'fake-cligen-runs.jsonl'),
    close: async () => rmSync(home, { recursive: true, force: true }),
  };
}
