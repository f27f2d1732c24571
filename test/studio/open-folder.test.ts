import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeTempHome, startTestStudio } from '../helpers/studio.js';

// POST /api/storage/open-generated-dir runs the desktop's folder opener (xdg-open on Linux):
// a real program on a PATH of our making, which records what it was asked to open.
describe.runIf(process.platform === 'linux')('POST /api/storage/open-generated-dir', () => {
  it('runs the folder opener with the generated directory', async () => {
    const bin = join(makeTempHome('svc-opener-'), 'bin');
    mkdirSync(bin);
    const record = join(bin, 'opened.txt');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${record}'\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const studio = await startTestStudio({ env: { PATH: bin } });
    try {
      const response = await studio.request('/api/storage/open-generated-dir', { method: 'POST' });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ opened: true, path: studio.ctx.paths.generatedDir });
      await vi.waitFor(() => expect(existsSync(record) && readFileSync(record, 'utf8')).toBe(studio.ctx.paths.generatedDir), {
        timeout: 5000,
      });
    } finally {
      await studio.stop();
    }
  });

  it('answers 501 OPENER_UNAVAILABLE with the path when no opener is installed', async () => {
    const studio = await startTestStudio({ env: { PATH: makeTempHome('svc-empty-path-') } });
    try {
      const response = await studio.request('/api/storage/open-generated-dir', { method: 'POST' });
      expect(response.status).toBe(501);
      const body = await response.json();
      expect(body.error.code).toBe('OPENER_UNAVAILABLE');
      expect(body.error.details.path).toBe(studio.ctx.paths.generatedDir);
    } finally {
      await studio.stop();
    }
  });
});
