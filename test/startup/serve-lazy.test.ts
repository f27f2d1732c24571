import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `svc serve` loads at start only what serving needs (issue 47): what is on
// MUST_STAY_LAZY loads on first use. The built program (what bin/svc.js runs)
// starts on a fresh SVC_HOME with load-recorder.mjs preloaded; at its first
// healthy answer the test reads every module the process resolved and, for
// the bundle's own files, the sources esbuild put in them
// (dist/bundle/metafile.json, written by scripts/bundle.mjs).

const root = join(import.meta.dirname, '../..');
const metafileOf = join(root, 'dist/bundle/metafile.json');

/** What `svc serve` must not load before it is used, by where the code comes from (a package, sources of the build). */
const MUST_STAY_LAZY: Readonly<Record<string, RegExp>> = {
  sharp: /(^|\/)node_modules\/sharp\//,
  'the MCP SDK': /(^|\/)node_modules\/@modelcontextprotocol\/sdk\//,
  'ajv (the MCP SDK validates with it)': /(^|\/)node_modules\/ajv\//,
  'ws (flow sockets)': /(^|\/)node_modules\/ws\//,
  'yauzl (epsilon archives)': /(^|\/)node_modules\/yauzl\//,
  'the simulators': /(^|\/)(dist|src)\/sim\//,
  'pg (team mode)': /(^|\/)node_modules\/(pg|pg-[a-z-]+)\//,
  'the AWS SDK (team mode)': /(^|\/)node_modules\/(@aws-sdk|@smithy)\//,
};

interface Metafile {
  readonly outputs: Record<string, { readonly entryPoint?: string; readonly inputs: Record<string, { readonly bytesInOutput: number }> }>;
}

let metafile: Metafile;
let home: string;
let record: string;
let schemaRecord: string;
let child: ChildProcess | undefined;
let url: string;

/** The files the process resolved so far (paths; the bundle's relative to the root, as the metafile names them). */
const resolved = (): string[] => [
  ...new Set(
    readFileSync(record, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => relative(root, line.startsWith('file:') ? fileURLToPath(line) : line)),
  ),
];

/** Each lazy module the process loaded, with the file that brought it: a package itself, or a chunk of the bundle holding its code. */
function lazyLoaded(): Record<string, string> {
  const found: Record<string, string> = {};
  for (const file of resolved()) {
    const sources = Object.entries(metafile.outputs[file]?.inputs ?? {})
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([source]) => source);
    for (const source of [file, ...sources])
      for (const [name, pattern] of Object.entries(MUST_STAY_LAZY))
        if (pattern.test(source)) found[name] ??= source === file ? file : `${file} holds ${source}`;
  }
  return found;
}

/** Starts the built `svc serve` with the recorder and waits for its first healthy answer. */
async function serve(): Promise<void> {
  const process_ = spawn(
    process.execPath,
    [
      '--import',
      pathToFileURL(join(import.meta.dirname, 'load-recorder.mjs')).href,
      join(root, 'bin/svc.js'),
      '--json',
      'serve',
      '--port',
      '0',
    ],
    {
      env: { PATH: process.env.PATH, HOME: home, SVC_HOME: home, SVC_LOAD_RECORD: record, SVC_SCHEMA_RECORD: schemaRecord, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child = process_;
  let stderr = '';
  process_.stderr?.on('data', (chunk) => (stderr += chunk));
  url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    process_.stdout?.on('data', (chunk) => {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline >= 0) resolve((JSON.parse(stdout.slice(0, newline)) as { url: string }).url);
    });
    process_.once('exit', (code) => reject(new Error(`svc serve exited (${code}) before it listened: ${stderr}`)));
  });
  for (;;) {
    const response = await fetch(`${url}/api/health`).catch(() => undefined);
    if (response?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  if (!existsSync(metafileOf)) throw new Error('the built program is missing: run `npm run build` (CI builds before the tests)');
  metafile = JSON.parse(readFileSync(metafileOf, 'utf8')) as Metafile;
  home = mkdtempSync(join(tmpdir(), 'svc-startup-'));
  record = join(home, 'loaded.txt');
  writeFileSync(record, '');
  schemaRecord = join(home, 'schemas.txt');
  writeFileSync(schemaRecord, '0');
  await serve();
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  rmSync(home, { recursive: true, force: true });
});

describe('svc serve at start', () => {
  it('has loaded the studio and none of the modules that load on first use', () => {
    // The recorder works: the studio's own chunk is among what it saw.
    const studioChunk = Object.entries(metafile.outputs).find(([, output]) => output.entryPoint === 'dist/studio/main.js')?.[0];
    expect(studioChunk).toBeDefined();
    expect(resolved()).toContain(studioChunk);
    expect(lazyLoaded()).toEqual({});
  });

  it('has built few zod schemas: an API schema is built by the first request that reads it', async () => {
    const schemasBuilt = (): number => Number(readFileSync(schemaRecord, 'utf8'));
    // About 130 today (the settings, the catalog's check of the lanes' defaults); built at load, the API's were some 3,000.
    const atStart = schemasBuilt();
    expect(atStart).toBeLessThan(400);
    const response = await fetch(`${url}/api/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: '' }),
    });
    expect(response.status).toBe(400);
    // The request's schema (and what it is made of) was built to check it: the count sees it.
    expect(schemasBuilt()).toBeGreaterThan(atStart + 20);
  });

  it('loads the MCP SDK with the first request to /mcp', async () => {
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'startup-test', version: '1.0.0' } },
      }),
    });
    await response.arrayBuffer();
    expect(response.status).toBe(200);
    expect(Object.keys(lazyLoaded())).toContain('the MCP SDK');
  });
});
