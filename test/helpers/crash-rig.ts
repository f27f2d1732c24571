import { rmSync } from 'node:fs';
import { jobRecord, type JobRecord } from '../../src/studio/api/index.js';
import { makeTempHome } from './studio.js';
import { startSvc, type RunningSvc } from './svc.js';

// Real processes for the crash tests: the simulators in one (`svc sim serve`,
// which prints the environment a studio needs), studios in others, all on one
// state directory, so a studio killed with SIGKILL is followed by one that
// finds what it left. The simulators' logs are read over HTTP (`__sim/requests`).

export interface CrashRig {
  /** The environment `svc sim serve` printed: each lane's base URL and key. */
  readonly simEnv: Readonly<Record<string, string>>;
  /** The origin of the simulator behind a base-URL variable (`SVC_GAMMA_BASE_URL`). */
  origin(variable: string): string;
  /** Starts a studio process on the rig's state directory; its URL. */
  startStudio(env?: Record<string, string>): Promise<string>;
  /** Stops the newest studio process: SIGKILL (a crash) or SIGTERM (a graceful stop). */
  stopStudio(signal: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** A simulator's log of one route, bodies included. */
  simRequests<T = { path: string; body: unknown }>(variable: string, route: string): Promise<T[]>;
  /** `GET /api/jobs/:requestId` of a studio, parsed. */
  job(url: string, requestId: string): Promise<JobRecord>;
  /** Kills every process and removes the state directory. */
  close(): Promise<void>;
}

/** `latencyMs`: how long each simulated upstream job takes, long enough to kill a studio in the middle. */
export async function startCrashRig(name: string, latencyMs: number): Promise<CrashRig> {
  const home = makeTempHome(`svc-${name}-`);
  const studios: RunningSvc[] = [];
  const simulators = await startSvc(['sim', 'serve', '--latency', String(latencyMs)]);
  const simEnv = (simulators.first as { env: Record<string, string> }).env;
  const origin = (variable: string) => new URL(simEnv[variable]).origin;
  return {
    simEnv,
    origin,
    async startStudio(env = {}) {
      // Earlier studios of a rig may still run on this home (a test stops only the last): share it on purpose.
      const studio = await startSvc(['serve', '--port', '0', '--shared-home', '--json'], { SVC_HOME: home, ...simEnv, ...env });
      studios.push(studio);
      return String(studio.first.url);
    },
    async stopStudio(signal) {
      await studios.at(-1)?.stop(signal);
    },
    async simRequests<T>(variable: string, route: string) {
      const response = await fetch(`${origin(variable)}/__sim/requests?route=${encodeURIComponent(route)}&full=1`);
      return ((await response.json()) as { requests: T[] }).requests;
    },
    job: async (url, requestId) => jobRecord.parse(await (await fetch(`${url}/api/jobs/${requestId}`)).json()),
    async close() {
      for (const studio of studios) await studio.stop('SIGKILL');
      await simulators.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
