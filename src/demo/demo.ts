import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeJsonFile } from '../common/json-file.js';
import type { SimulatorSuite, SuiteOptions } from '../sim/suite.js';
import { isLaneId, type DemoGuide } from '../studio/api/index.js';
import { KEY_NAMESPACES, type KeyNamespace } from '../studio/auth/key-namespaces.js';
import { LANES } from '../studio/catalog/registry.js';
import type { StudioOptions } from '../studio/context.js';
import { studioPaths } from '../studio/paths.js';
import { SAMPLE_WORKFLOW } from './sample-workflow.js';
import type { SuiteFacts } from './suite-thread.js';

// The offline demo, the one room that knows both the studio and the simulators:
// where the simulators' session files go, and what a studio needs to use them —
// for `svc serve --demo` on a thread of the studio's process (with the demo
// guide and the sample workflow; tests start them in-process), or as the
// environment printed by `svc sim serve` (the simulators in their own process).

/** The file of each simulated session in `dir`, by lane. */
const sessionFilesIn = (suite: SuiteFacts, dir: string): Record<string, string> =>
  Object.fromEntries(Object.keys(suite.sessions).map((lane) => [lane, join(dir, `${lane}-auth.json`)]));

/** Writes each simulated session (mode 0600) into `dir`; answers the file of each lane. */
function writeSessions(suite: SuiteFacts, dir: string): Record<string, string> {
  const files = sessionFilesIn(suite, dir);
  for (const [lane, session] of Object.entries(suite.sessions)) writeJsonFile(files[lane], session, { private: true });
  return files;
}

/**
 * The environment a studio needs to use a running suite: each lane's base-URL
 * variable, the keys, the session files. Every name comes from the lane
 * modules and key namespaces, so a new lane needs nothing here.
 */
export function simulatorEnvironment(suite: SuiteFacts, sessionFiles: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, url] of Object.entries(suite.upstreams)) {
    const [lane, endpoint = 'base'] = key.split('.');
    if (!isLaneId(lane)) continue;
    const variable = LANES[lane].endpoints[endpoint]?.env;
    if (variable) env[variable] = url;
  }
  for (const [namespace, value] of Object.entries(suite.keys)) {
    const spec = KEY_NAMESPACES[namespace as KeyNamespace];
    if (spec) env[spec.env] = value;
  }
  for (const [lane, file] of Object.entries(sessionFiles)) {
    const credential = isLaneId(lane) ? LANES[lane].credential : undefined;
    if (credential?.kind === 'oauth-session') env[credential.fileEnv] = file;
  }
  // What the members name themselves (a fake program and its home).
  Object.assign(env, suite.env);
  return env;
}

export interface RunningSimulators {
  readonly suite: SimulatorSuite;
  /** Lane base URLs (the main endpoint of each simulated lane). */
  readonly upstreams: Record<string, string>;
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/** `svc sim serve`: the suite with its session files in `dir` (default: a new temp dir). */
export async function startSimulators(options: SuiteOptions & { dir?: string } = {}): Promise<RunningSimulators> {
  const { startSimulatorSuite } = await import('../sim/suite.js');
  const suite = await startSimulatorSuite(options);
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'svc-sim-'));
  const files = writeSessions(suite, dir);
  const upstreams = Object.fromEntries(Object.entries(suite.upstreams).filter(([key]) => !key.includes('.')));
  return { suite, upstreams, env: simulatorEnvironment(suite, files), close: () => suite.close() };
}

export interface Demo {
  readonly options: NonNullable<StudioOptions['demo']>;
  /** The simulators themselves (their logs, faults, the beta simulator's service account). */
  readonly suite: SimulatorSuite;
  close(): Promise<void>;
}

/**
 * Demo mode: every simulator in-process, the studio pointed at them with their
 * placeholder credentials (tests, which reach the simulators' logs and faults).
 */
export async function startDemo(env: Readonly<Record<string, string | undefined>>): Promise<Demo> {
  const [{ startSimulatorSuite }, { DEMO_GUIDE }] = await Promise.all([import('../sim/suite.js'), import('./guide.js')]);
  const suite = await startSimulatorSuite({ demo: true });
  return { options: demoOptions(suite, DEMO_GUIDE, env), suite, close: () => suite.close() };
}

/** `svc serve --demo`: the same, the simulators on a thread of their own (suite-thread.ts): none of their code loads here. */
export async function startDemoThread(
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ readonly options: Demo['options']; close(): Promise<void> }> {
  const { startSuiteThread } = await import('./suite-thread.js');
  const thread = await startSuiteThread();
  return { options: demoOptions(thread.facts, thread.guide, env), close: () => thread.close() };
}

/**
 * What a studio needs of a running suite in demo mode. The demo sessions go
 * under `$SVC_HOME/demo`, so a real session of the user's is never touched;
 * they are written by the studio once it holds the state dir's lock
 * (`prepare`), so a second demo refused on a running studio's dir writes
 * nothing over the first's.
 */
function demoOptions(suite: SuiteFacts, guide: DemoGuide, env: Readonly<Record<string, string | undefined>>): Demo['options'] {
  const dir = join(studioPaths(env).home, 'demo');
  return {
    upstreams: suite.upstreams,
    keys: suite.keys as Partial<Record<KeyNamespace, string>>,
    sessionFiles: sessionFilesIn(suite, dir),
    env: suite.env,
    guide,
    flowWorkflows: [SAMPLE_WORKFLOW],
    prepare: () => void writeSessions(suite, dir),
  };
}
