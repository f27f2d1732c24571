import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { makeTempHome } from '../helpers/studio.js';
import { BUILT_SVC, runSvc, startSvc, type RunningSvc } from '../helpers/svc.js';

// The README's main job as a newcomer runs it: `npm run demo` starts the
// built program (bin/svc.js, the bundle, not the sources the other tests run
// through tsx), its web UI answers at `/`, and `npx svc generate` writes a
// real PNG. The port is the one thing changed (0: a free one), so the test
// never meets a studio already on 3333.

const ROOT = resolve(import.meta.dirname, '../..');
const demoScript = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.demo;
const home = makeTempHome('svc-readme-');
let demo: RunningSvc;
let url: string;

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'bundle', 'svc.js')))
    throw new Error('the built program is missing: run `npm run build` (CI builds before the tests)');
  // `node bin/svc.js serve --demo`: the script's arguments after the program, as npm would run them.
  const [node, program, ...args] = demoScript.split(' ');
  expect([node, resolve(ROOT, program)]).toEqual(['node', BUILT_SVC]);
  demo = await startSvc([...args, '--port', '0', '--json'], { SVC_HOME: home }, 20_000, { built: true });
  url = String(demo.first.url);
});

afterAll(async () => {
  await demo?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe("the README's main command (npm run demo)", () => {
  it('serves the web UI at / with its hashed assets, and refuses a foreign Host for both', async () => {
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<div id="root"></div>');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await asset.text()).length).toBeGreaterThan(1000);
    for (const path of ['/', script as string]) {
      const foreign = await rawRequest(url, { path, headers: { host: 'studio.evil.example' } });
      expect(foreign.status).toBe(403);
    }
  });

  it('`svc generate "a red fox" -o fox.png` writes a real PNG through it, listed in history with its prompt', async () => {
    const out = join(home, 'fox.png');
    const run = await runSvc(['generate', 'a red fox', '-o', out, '--server', url], { SVC_HOME: home }, 30_000, { built: true });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const image = await sharp(out).metadata();
    expect(image.format).toBe('png');
    expect(image.width).toBeGreaterThan(0);
    const history = (await (await fetch(`${url}/api/history`)).json()) as { items: { prompt: string }[] };
    expect(history.items.map((item) => item.prompt)).toContain('a red fox');
  });
});
