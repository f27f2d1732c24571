import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';

// Issue 29, item 16: `npm ci` on Node 20 is clean. light-my-request (fastify's
// inject) asks cookie@^2, which wants Node 22; package.json's overrides pin the
// Node 18+ cookie@1.1.1, which has the function it calls. This checks the pin
// is what got installed and that inject's cookie path works with it.
describe('the cookie override', () => {
  const root = join(import.meta.dirname, '../..');
  const requireFromLmr = createRequire(join(root, 'node_modules/light-my-request/package.json'));

  it('light-my-request resolves a cookie whose engines take Node 20', () => {
    const manifest = JSON.parse(readFileSync(requireFromLmr.resolve('cookie/package.json'), 'utf8')) as {
      version: string;
      engines?: { node?: string };
    };
    expect(manifest.version).toBe('1.1.1');
    expect(manifest.engines?.node).toBe('>=18');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      overrides?: Record<string, unknown>;
      engines: { node: string };
    };
    expect(pkg.overrides).toEqual({ 'light-my-request': { cookie: '1.1.1' } });
  });

  it("fastify's inject sends cookies through it", async () => {
    const app = Fastify();
    app.get('/echo', async (request) => ({ cookie: request.headers.cookie ?? null }));
    const answer = await app.inject({ method: 'GET', url: '/echo', cookies: { flavour: 'oat raisin', b: '2' } });
    expect(answer.json()).toEqual({ cookie: 'flavour=oat%20raisin; b=2' });
    await app.close();
  });
});
