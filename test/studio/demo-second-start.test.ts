import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDemo } from '../../src/demo/demo.js';
import { startStudio, type RunningStudio } from '../../src/studio/main.js';
import { StateDirLocked } from '../../src/studio/state-lock.js';
import { makeTempHome } from '../helpers/studio.js';

// Issue 45 item 8: a second `svc serve --demo` on a running demo's state dir
// was refused, but rewrote the demo session files on its way, so every
// `oauth` call of the running studio then failed AUTH_CHATGPT_EXPIRED. The
// demo's files are written by the studio once it holds the lock.

const home = makeTempHome('svc-demo-twice-');
const env = { PATH: process.env.PATH, SVC_HOME: home };
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  rmSync(home, { recursive: true, force: true });
});

describe('a second demo on a running demo state dir', () => {
  it('is refused and writes nothing: the first one oauth calls keep working', async () => {
    const first = await startDemo(env);
    const studio: RunningStudio = await startStudio({ env, port: 0, demo: first.options, onClose: first.close });
    closers.push(() => studio.close());
    const oauthFile = first.options.sessionFiles.oauth as string;
    const before = readFileSync(oauthFile, 'utf8');

    const second = await startDemo(env);
    expect(second.options.sessionFiles.oauth).toBe(oauthFile);
    await expect(startStudio({ env, port: 0, demo: second.options, onClose: second.close })).rejects.toBeInstanceOf(StateDirLocked);
    await second.close();
    expect(readFileSync(oauthFile, 'utf8')).toBe(before);

    const answer = await fetch(`${studio.url}/api/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'oauth', prompt: 'a lighthouse' }),
    });
    expect(answer.status).toBe(200);
    expect(join(home, 'demo')).toBe(join(oauthFile, '..'));
  }, 60_000);
});
