import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The fake of the local generation CLI behind `cligen`: a real program, run as
// a real process by the lane (contracts/cligen-local-cli-artifact.md §6).

const here = dirname(fileURLToPath(import.meta.url));
const SCRIPT = 'fake-cligen.mjs';

/**
 * Absolute path of the fake CLI (an executable script). It is plain JavaScript
 * that `tsc` does not copy, so from dist/sim/cligen it is found in the
 * checkout's src/sim/cligen.
 */
export function fakeCligenPath(): string {
  const beside = join(here, SCRIPT);
  if (existsSync(beside)) return beside;
  const inSource = resolve(here, '..', '..', '..', 'src', 'sim', 'cligen', SCRIPT);
  if (existsSync(inSource)) return inSource;
  throw new Error(`The fake CLI ${SCRIPT} is not next to ${here} nor in src/sim/cligen.`);
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
