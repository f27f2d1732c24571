import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startRig } from '../generate/rig.js';

describe('shutdown', () => {
  it('cuts an in-flight generation cleanly: JOB_CANCELLED in the error shape, upstream aborted, connection closed', async () => {
    const rig = await startRig();
    const { port } = rig.studio;
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
    const body = JSON.stringify({ prompt: 'a slow heron [sim:slow=2000]', provider: 'api', requestId: 'shutdown-1' });
    socket.write(`POST /api/generate HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    // Close while the upstream call is still open (waitForRequest would wait for it to finish).
    for (let attempt = 0; attempt < 500 && !rig.sim.simulator.requests().some((entry) => entry.path.endsWith('/responses')); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await rig.studio.close();
    await ended;
    const [head, payload] = received.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 499 /);
    expect(JSON.parse(payload)).toMatchObject({ error: { code: 'JOB_CANCELLED', details: { requestId: 'shutdown-1' } } });
    // The upstream call was cancelled, and nothing was half-saved.
    const upstream = rig.sim.simulator.requests().find((entry) => entry.path.endsWith('/responses'));
    expect(upstream?.outcome).toBe('client-aborted');
    expect(readdirSync(rig.studio.ctx.paths.generatedDir).filter((name) => !name.startsWith('.'))).toEqual([]);
    await rig.stop();
  });
});
