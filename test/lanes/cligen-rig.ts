import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { startFakeCligen, type FakeCligen } from '../../src/sim/cligen/index.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

// A studio whose cligen lane runs the fake CLI as a real process, with its own
// SVC_HOME, HOME and TMPDIR (so the CLI's folders and the reference temp dirs
// are private and can be inspected).

export interface CligenRun {
  readonly pid: number;
  readonly argv: string[];
  readonly env: string[];
  /** The first directory of the CLI's PATH. */
  readonly pathHead: string;
  readonly prompt: string;
  readonly imageName: string;
  readonly imagePaths: string[];
  readonly references: { path: string; bytes: number }[];
  readonly markers: string[];
  readonly grandchild?: number;
}

export interface CligenRig {
  readonly studio: TestStudio;
  readonly fake: FakeCligen;
  /** The studio's HOME (installer locations are looked up under it). */
  readonly home: string;
  /** The studio's TMPDIR: reference folders are made here. */
  readonly tmp: string;
  generate(body: Record<string, unknown>, path?: string): Promise<Response>;
  /** The fake CLI's runs so far, oldest first. */
  runs(): CligenRun[];
  stop(): Promise<void>;
}

export interface CligenRigOptions {
  /** SVC_CLIGEN_BIN (default: the fake CLI; false: unset). */
  readonly program?: string | false;
  readonly env?: Record<string, string>;
}

export async function startCligenRig(options: CligenRigOptions = {}): Promise<CligenRig> {
  const fake = startFakeCligen();
  const home = mkdtempSync(join(tmpdir(), 'svc-cligen-home-'));
  const tmp = mkdtempSync(join(tmpdir(), 'svc-cligen-tmp-'));
  const program = options.program === undefined ? fake.program : options.program;
  const studio = await startTestStudio({
    env: {
      HOME: home,
      TMPDIR: tmp,
      SVC_CLIGEN_HOME: fake.home,
      ...(program ? { SVC_CLIGEN_BIN: program } : {}),
      ...options.env,
    },
  });
  return {
    studio,
    fake,
    home,
    tmp,
    generate: (body, path = '/api/generate') =>
      studio.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'cligen', ...body }),
      }),
    runs: () =>
      existsSync(fake.runLog)
        ? readFileSync(fake.runLog, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as CligenRun)
        : [],
    async stop() {
      await studio.stop();
      await fake.close();
      rmSync(home, { recursive: true, force: true });
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

export interface ErrorAnswer {
  readonly error: { code: string; message: string; details?: Record<string, unknown> };
}

/** Asserts status and code together (a failure shows both and the message), answers the body. */
export async function expectError(response: Response, status: number, code: string): Promise<ErrorAnswer> {
  const body = (await response.json()) as ErrorAnswer;
  expect({ status: response.status, code: body.error?.code, message: body.error?.message }).toMatchObject({ status, code });
  return body;
}

/** Live (not zombie) processes of a process group, from /proc. */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the command name: state, ppid, pgrp, ...
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(name));
  }
  return members;
}

/** Alive and not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Waits (bounded: about 10 s) until `check` answers something truthy; fails naming `what` otherwise. */
export async function waitFor<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  for (let tries = 0; tries < 400; tries += 1) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Gave up waiting for ${what}.`);
}

/** Folders of reference files the lane made under `tmp` (none may outlive a run). */
export const referenceDirs = (tmp: string): string[] => readdirSync(tmp).filter((name) => name.includes('-refs-'));

/** A small image as a data URL. */
export async function imageDataUrl(format: 'png' | 'jpeg' | 'webp', width = 64, height = 64): Promise<string> {
  const sharp = (await import('sharp')).default;
  const bytes = await sharp({ create: { width, height, channels: 3, background: { r: 200, g: 120, b: 40 } } })
    .toFormat(format)
    .toBuffer();
  return `data:image/${format};base64,${bytes.toString('base64')}`;
}
