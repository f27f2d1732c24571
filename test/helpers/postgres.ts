import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

// A real PostgreSQL server for the tests, started by the test: Debian's binaries (initdb, postgres),
// a cluster in a temporary data dir, on a free loopback port, trusted local logins, no fsync (the
// tests never survive a machine crash). PostgreSQL refuses to run as root, so as root it runs as
// the `postgres` user Debian's package creates. `.ci/run` installs the package when it is missing.

export interface TestPostgres {
  /** postgres://… of the server's `postgres` database (the admin connection). */
  readonly url: string;
  /** A new, empty database on this server; answers its URL. */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
}

const binDirs = (): string[] => {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.map((version) => join(root, version, 'bin'));
};

/** Where initdb and postgres are: Debian's versioned dir, else the PATH; undefined when neither has them. */
export function postgresBinDir(): string | undefined {
  for (const dir of binDirs()) if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres'))) return dir;
  const found = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  return found ? join(found, '..') : undefined;
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });

let databases = 0;

/** `settings`: more server settings (`-c name=value`), e.g. `{ shared_preload_libraries: 'pg_stat_statements' }`. */
export async function startPostgres(extra: { readonly settings?: Readonly<Record<string, string>> } = {}): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql; .ci/run does it)');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  const data = join(dir, 'data');
  let uid: number | undefined;
  let gid: number | undefined;
  if (asRoot) {
    const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const group = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    if (id.status !== 0) throw new Error('running as root and there is no postgres user to run PostgreSQL as');
    uid = Number(id.stdout.trim());
    gid = Number(group.stdout.trim());
    chmodSync(dir, 0o755);
    chownSync(dir, uid, gid);
  }
  const options = { uid, gid, encoding: 'utf8' as const };
  const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', 'svc', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--locale=C'], options);
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const server: ChildProcess = spawn(
    join(bin, 'postgres'),
    [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=200',
      '-c',
      'shared_buffers=32MB',
      ...Object.entries(extra.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    { uid, gid, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  server.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const url = `postgres://svc@127.0.0.1:${port}/postgres`;
  const stop = async () => {
    if (server.exitCode === null) {
      server.kill('SIGINT'); // a fast shutdown
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => {});
      if (server.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    async createDatabase(name = `svc_test_${process.pid}_${++databases}`) {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE "${name}"`);
      } finally {
        await admin.end();
      }
      return `postgres://svc@127.0.0.1:${port}/${name}`;
    },
    stop,
  };
}
