import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { RESPONSES_ROUTES } from '../../src/sim/responses-simulator.js';
import { startRig } from '../generate/rig.js';
import { makeTempHome, startTestStudio } from '../helpers/studio.js';
import { SVC } from '../helpers/svc.js';

describe('credentials never leave the studio', () => {
  it('masks a key the upstream echoes back, in the message and the details', async () => {
    const rig = await startRig();
    try {
      const key = rig.sim.apiKey;
      rig.sim.simulator.fault(RESPONSES_ROUTES.apiResponses, {
        status: 400,
        body: {
          error: {
            message: `The key ${key} may not use this model (sent as Bearer ${key}).`,
            type: 'invalid_request_error',
            code: 'invalid_value',
          },
        },
      });
      const response = await rig.post('/api/generate', { prompt: 'a fox', provider: 'api' });
      const text = await response.text();
      expect(response.status).toBe(502);
      expect(JSON.parse(text).error.code).toBe('UPSTREAM_FAILED');
      expect(text).not.toContain(key);
      expect(text).toContain('[redacted]');
    } finally {
      await rig.stop();
    }
  });

  it('accepts ?token= only on reads: writes must send the header', async () => {
    const studio = await startTestStudio({ token: 'query-token-1' });
    try {
      expect((await studio.request('/api/health?token=query-token-1')).status).toBe(200);
      const write = await studio.request('/api/defaults?token=query-token-1', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: '{"reasoning":"high"}',
      });
      expect(write.status).toBe(401);
      const header = await studio.request('/api/defaults', {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: 'Bearer query-token-1' },
        body: '{"reasoning":"high"}',
      });
      expect(header.status).toBe(200);
    } finally {
      await studio.stop();
    }
  });

  it('advertises loopback for a wildcard bind, and a token admits any Host', async () => {
    const studio = await startTestStudio({ host: '0.0.0.0', token: 'wild-token-1' });
    try {
      expect(studio.url).toBe(`http://127.0.0.1:${studio.port}`);
      const response = await fetch(`${studio.url}/api/health`, { headers: { authorization: 'Bearer wild-token-1' } });
      expect(response.status).toBe(200);
    } finally {
      await studio.stop();
    }
  });

  it('keeps a query token out of the request log', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', SVC, 'serve', '--port', '0', '--json', '--log'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_HOME: makeTempHome(), SVC_TOKEN: 'log-secret-token-9' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stdout = '';
        child.stdout.on('data', (chunk) => {
          stdout += chunk;
          if (stdout.includes('\n')) resolve(JSON.parse(stdout.split('\n')[0]).url);
        });
        child.on('close', () => reject(new Error(`serve exited: ${stderr}`)));
      });
      expect((await fetch(`${url}/api/health?token=log-secret-token-9`)).status).toBe(200);
      expect((await fetch(`${url}/api/health?token=wrong-guess-123`)).status).toBe(401);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    expect(stderr).toContain('/api/health?token=[redacted]');
    expect(stderr).not.toContain('log-secret-token-9');
    expect(stderr).not.toContain('wrong-guess-123');
  });
});
