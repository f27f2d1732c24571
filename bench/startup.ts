// Cold start and idle memory of the studio, against a plain Fastify server
// started the same way in the same run (rounds alternate).
//
// For each round: spawn the process, poll GET /api/health every 2 ms until it
// answers 200 (spawn → healthy) and read the CPU time it used to get there
// (its threads' run time; unlike the wall time, it does not grow with what
// else the machine runs), then wait IDLE_MS and read its resident memory
// (VmRSS). The studio is the built program (`node bin/svc.js serve`,
// as the README runs it; `npm run build` first), with a fresh SVC_HOME each
// round, plain and with --demo. With BENCH_BASELINE_TREE set to another
// checkout (built: its dist/bundle, and a node_modules), its `svc serve` runs
// in the same rounds: the studio against its own earlier tree.
//
// Run: node --import tsx bench/startup.ts   (BENCH_ROUNDS, default 10; BENCH_BASELINE_TREE)
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, round, table } from './lib/stats.js';

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 10));
const IDLE_MS = 2000;
const root = join(import.meta.dirname, '..');
if (!existsSync(join(root, 'dist/bundle/svc.js'))) throw new Error('Build first: npm run build');
const baselineTree = process.env.BENCH_BASELINE_TREE;
if (baselineTree && !existsSync(join(baselineTree, 'dist/bundle/svc.js')))
  throw new Error(`BENCH_BASELINE_TREE: ${baselineTree} has no dist/bundle/svc.js (build it first)`);

interface Sample {
  readonly healthyMs: number;
  readonly cpuMs: number;
  readonly idleRssMiB: number;
}

/** CPU time of a process so far: the run time of its threads alive now (schedstat, ns). */
const cpuMs = (pid: number): number =>
  readdirSync(`/proc/${pid}/task`).reduce((sum, task) => {
    try {
      return sum + Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    } catch {
      return sum; // the thread ended meanwhile
    }
  }, 0);
const rssMiB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function measure(start: (port: number, home: string) => ChildProcess): Promise<Sample> {
  const port = await freePort();
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-start-'));
  const started = performance.now();
  const child = start(port, home);
  let healthyMs = 0;
  let cpu = 0;
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/health`);
      await response.arrayBuffer();
      if (response.ok) {
        healthyMs = performance.now() - started;
        cpu = cpuMs(child.pid as number);
        break;
      }
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`the process exited (${child.exitCode}) before it was healthy`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const idleRssMiB = rssMiB(child.pid as number);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  rmSync(home, { recursive: true, force: true });
  return { healthyMs, cpuMs: cpu, idleRssMiB };
}

/** `svc serve` of a tree, on a fresh home. */
const serve =
  (tree: string, ...flags: string[]) =>
  (port: number, home: string) =>
    spawn(process.execPath, [join(tree, 'bin/svc.js'), 'serve', ...flags, '--port', String(port)], {
      stdio: 'ignore',
      env: { PATH: process.env.PATH, HOME: home, SVC_HOME: home },
    });

const subjects: Record<string, (port: number, home: string) => ChildProcess> = {
  'plain fastify': (port: number) =>
    spawn(process.execPath, [join(root, 'bench/lib/plain-fastify.mjs'), String(port)], { stdio: 'ignore' }),
  'svc serve': serve(root),
  ...(baselineTree ? { 'svc serve (baseline tree)': serve(baselineTree) } : {}),
  'svc serve --demo': serve(root, '--demo'),
};

const samples = new Map<string, Sample[]>(Object.keys(subjects).map((name) => [name, []]));
const names = Object.keys(subjects);
// One warm-up of each (disk caches), then rounds in rotating order.
for (const name of names) await measure(subjects[name]);
for (let index = 0; index < ROUNDS; index += 1) {
  for (let offset = 0; offset < names.length; offset += 1) {
    const name = names[(index + offset) % names.length];
    samples.get(name)?.push(await measure(subjects[name]));
  }
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
const baseline = samples.get('plain fastify') as Sample[];
const rows = names.map((name) => {
  const list = samples.get(name) as Sample[];
  const healthy = median(list.map((sample) => sample.healthyMs));
  const cpu = median(list.map((sample) => sample.cpuMs));
  const rss = median(list.map((sample) => sample.idleRssMiB));
  return [
    name,
    round(healthy),
    round(healthy / median(baseline.map((sample) => sample.healthyMs)), 2),
    round(cpu),
    round(cpu / median(baseline.map((sample) => sample.cpuMs)), 2),
    round(rss),
    round(rss / median(baseline.map((sample) => sample.idleRssMiB)), 2),
  ];
});
console.log(
  `startup: ${ROUNDS} rounds each, medians; spawn → first 200 from GET /api/health (wall, and the CPU time used); resident memory ${IDLE_MS} ms later`,
);
if (baselineTree) console.log(`baseline tree: ${baselineTree}`);
console.log(table(['process', 'healthy ms', 'ratio', 'CPU ms', 'ratio', 'idle RSS MiB', 'ratio'], rows));
console.log(
  JSON.stringify({
    bench: 'startup',
    rounds: ROUNDS,
    ...(baselineTree ? { baselineTree } : {}),
    results: Object.fromEntries(
      rows.map(([name, healthy, healthyRatio, cpu, cpuRatio, rss, rssRatio]) => [
        name,
        { healthyMs: healthy, healthyRatio, cpuMs: cpu, cpuRatio, idleRssMiB: rss, rssRatio },
      ]),
    ),
  }),
);
