import { rmSync } from 'node:fs';
import { jobRecord, type JobRecord } from '../../src/studio/api/index.js';
import { startPostgres, type TestPostgres } from './postgres.js';
import { startS3, type TestS3 } from './s3.js';
import { makeTempHome } from './studio.js';
import { startSvc, type RunningSvc } from './svc.js';

// Team mode with real processes: a PostgreSQL server and s3rver started by the test, the
// simulators in their own process (`svc sim serve`), and studios in others, each with its own
// state dir (its lock, its descriptor) and the two settings that make them one team:
// SVC_DATABASE_URL and SVC_ASSET_STORE (with the AWS variables pointing at s3rver).

export interface TeamStudio {
  readonly url: string;
  /** Its name among the team (GET /api/health `instance`). */
  readonly instance: string;
  readonly process: RunningSvc;
}

export interface TeamRig {
  readonly postgres: TestPostgres;
  readonly s3: TestS3;
  /** The variables every studio of the team is started with. */
  readonly teamEnv: Readonly<Record<string, string>>;
  readonly simEnv: Readonly<Record<string, string>>;
  /** The origin of the simulator behind a base-URL variable (`SVC_GAMMA_BASE_URL`). */
  origin(variable: string): string;
  /** Starts one more studio of the team. */
  startStudio(env?: Record<string, string>): Promise<TeamStudio>;
  /** A simulator's log of one route, bodies included. */
  simRequests<T = { path: string; body: unknown }>(variable: string, route: string): Promise<T[]>;
  job(url: string, requestId: string): Promise<JobRecord>;
  close(): Promise<void>;
}

export async function startTeamRig(name: string, latencyMs: number): Promise<TeamRig> {
  const postgres = await startPostgres();
  const s3 = await startS3();
  const database = await postgres.createDatabase(`svc_${name.replace(/\W/g, '_')}`);
  const simulators = await startSvc(['sim', 'serve', '--latency', String(latencyMs)]);
  const simEnv = (simulators.first as { env: Record<string, string> }).env;
  const teamEnv = { SVC_DATABASE_URL: database, SVC_ASSET_STORE: `s3://${s3.bucket}/${name}`, ...s3.env };
  const studios: TeamStudio[] = [];
  const homes: string[] = [];
  const origin = (variable: string) => new URL(simEnv[variable]).origin;
  return {
    postgres,
    s3,
    teamEnv,
    simEnv,
    origin,
    async startStudio(env = {}) {
      const home = makeTempHome(`svc-team-${name}-`);
      homes.push(home);
      const process = await startSvc(['serve', '--port', '0', '--json'], { SVC_HOME: home, ...simEnv, ...teamEnv, ...env }, 60_000);
      const url = String(process.first.url);
      const health = (await (await fetch(`${url}/api/health`)).json()) as { instance: string };
      const studio = { url, instance: health.instance, process };
      studios.push(studio);
      return studio;
    },
    async simRequests<T>(variable: string, route: string) {
      const response = await fetch(`${origin(variable)}/__sim/requests?route=${encodeURIComponent(route)}&full=1`);
      return ((await response.json()) as { requests: T[] }).requests;
    },
    job: async (url, requestId) => jobRecord.parse(await (await fetch(`${url}/api/jobs/${requestId}`)).json()),
    async close() {
      for (const studio of studios) await studio.process.stop('SIGKILL');
      await simulators.stop();
      await s3.stop();
      await postgres.stop();
      for (const home of homes) rmSync(home, { recursive: true, force: true });
    },
  };
}
