import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { readSse } from '../../src/common/events/client.js';
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
    socket.write(
      `POST /api/generate HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
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

  it('lets a job that is already saving finish its save: nothing paid for is thrown away', async () => {
    const rig = await startRig();
    const seen: string[] = [];
    let closing: Promise<void> | undefined;
    rig.studio.ctx.events.subscribe((event) => {
      if (event.topic !== 'generation' || event.requestId !== 'shutdown-saving-1') return;
      seen.push(event.event === 'phase' ? `phase:${event.phase}` : String(event.event));
      if (event.event === 'phase' && event.phase === 'saving') closing = rig.studio.close();
    });
    const accepted = await rig.post('/api/generate', { prompt: 'a heron', provider: 'api', async: true, requestId: 'shutdown-saving-1' });
    expect(accepted.status).toBe(202);
    for (let attempt = 0; attempt < 500 && !closing; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    await closing;
    expect(seen).toContain('phase:saving');
    expect(seen[seen.length - 1]).toBe('done');
    expect(readdirSync(rig.studio.ctx.paths.generatedDir).filter((name) => name.endsWith('.png'))).toHaveLength(1);
    await rig.stop();
  });

  it('tells a per-request stream why it ends: the error event arrives before the stream closes', async () => {
    const rig = await startRig();
    const response = await rig.post(
      '/api/generate',
      { prompt: 'a slow crane [sim:slow=3000]', provider: 'api' },
      { accept: 'text/event-stream' },
    );
    const events: Record<string, unknown>[] = [];
    const reading = (async () => {
      for await (const message of readSse(response.body as ReadableStream<Uint8Array>)) events.push(JSON.parse(message.data));
    })();
    for (let attempt = 0; attempt < 500 && !events.some((event) => event.phase === 'planning'); attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await rig.studio.close();
    await reading;
    const last = events[events.length - 1];
    expect(last).toMatchObject({ event: 'error', error: { code: 'JOB_CANCELLED', message: 'The studio is shutting down.' } });
    await rig.stop();
  });
});
