import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/studio/errors.js';
import { TRACE_PRESETS, type TraceParameters } from '../../src/studio/vector/presets.js';
import { traceImage } from '../../src/studio/vector/trace.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

// Issue 33, item 2: tracing is bounded. A 2048² noise image with the most
// detailed parameters made 4.2 M paths (390 MB of SVG), took 5 GB that was
// never given back and froze the event loop. Each trace now runs in a process
// of its own, killed past its budget, on cancel or over a limit, and an image
// over the limits is refused from a sampled estimate before the trace.

/** The most detailed parameters the ranges allow. */
const MOST_DETAILED: TraceParameters = {
  ...TRACE_PRESETS.general,
  filterSpeckle: 0,
  colorPrecision: 8,
  layerDifference: 1,
  cornerThreshold: 0,
  lengthThreshold: 3.5,
  maxIterations: 70,
  spliceThreshold: 0,
  pathPrecision: 8,
};

/** An RGB noise PNG (a seeded generator: the same image every run). */
async function noisePng(side: number): Promise<Buffer> {
  const pixels = Buffer.alloc(side * side * 3);
  let seed = 12345;
  for (let index = 0; index < pixels.length; index += 1) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    pixels[index] = (seed >> 16) & 255;
  }
  return sharp(pixels, { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/** What a trace threw, as code and details. */
async function refusal(tracing: Promise<unknown>): Promise<{ code: string; details?: Record<string, unknown>; message: string }> {
  const error = await tracing.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ServiceError);
  const { code, details, message } = error as ServiceError;
  return { code, details, message };
}

const budget = (budgetMs = 60_000) => ({ signal: new AbortController().signal, budgetMs });

let noise2048: Buffer;
let noise1024: Buffer;
let studio: TestStudio;

beforeAll(async () => {
  [noise2048, noise1024] = await Promise.all([noisePng(2048), noisePng(1024)]);
});

afterAll(async () => {
  await studio?.stop();
});

describe('tracing within bounds', () => {
  it('the bar: a 2048² noise trace with the most detailed parameters is refused with a code, RSS stays put, health answers meanwhile', async () => {
    studio = await startTestStudio();
    const rssBefore = process.memoryUsage.rss();
    let tracing = true;
    const latencies: number[] = [];
    const traced = refusal(traceImage(noise2048, MOST_DETAILED, budget())).finally(() => (tracing = false));
    while (tracing) {
      const started = performance.now();
      const health = await studio.request('/api/health');
      await health.arrayBuffer();
      latencies.push(performance.now() - started);
      expect(health.status).toBe(200);
    }
    const { code, details } = await traced;
    expect(code).toBe('TRACE_TOO_COMPLEX');
    expect(details).toMatchObject({ reason: 'estimate', maxPaths: expect.any(Number) });
    expect(details?.estimatedPaths as number).toBeGreaterThan(1_000_000);
    const rssAfter = process.memoryUsage.rss();
    console.log(
      `trace bar: rss ${Math.round(rssBefore / 2 ** 20)} → ${Math.round(rssAfter / 2 ** 20)} MB, health ×${latencies.length}, slowest ${Math.round(Math.max(...latencies))} ms`,
    );
    expect(rssAfter - rssBefore).toBeLessThan(300 * 2 ** 20);
    // Generous: the trace runs in another process; a frozen loop took seconds.
    expect(Math.max(...latencies)).toBeLessThan(1_000);
  });

  it('a trace that goes over a limit anyway is stopped with its reason: paths, memory', async () => {
    // Below the size that is estimated, the trace runs and its result is checked.
    const small = await noisePng(256);
    const paths = await refusal(traceImage(small, MOST_DETAILED, { ...budget(), limits: { maxPaths: 1_000 } }));
    expect(paths).toMatchObject({ code: 'TRACE_TOO_COMPLEX', details: { reason: 'paths', maxPaths: 1_000 } });
    // With the estimate let through, the process's memory cap stops it while it runs.
    const memory = await refusal(
      traceImage(noise1024, MOST_DETAILED, { ...budget(), limits: { maxPaths: 1e9, maxSvgBytes: 1e10, maxMemoryBytes: 150 * 2 ** 20 } }),
    );
    expect(memory).toMatchObject({ code: 'TRACE_TOO_COMPLEX', details: { reason: 'memory' } });
  });

  it('the line-art preset on noise answers a code and a message that says why, not "Unknown error occurred"', async () => {
    const { code, details, message } = await refusal(traceImage(noise1024, TRACE_PRESETS['line-art'], budget()));
    expect(code).toBe('TRACE_TOO_COMPLEX');
    expect(details).toMatchObject({ reason: 'tracer' });
    expect(message).not.toMatch(/unknown error/i);
    expect(message).toMatch(/line art/);
  });

  it('refuses a source over the pixel limit from its header', async () => {
    const { code, details } = await refusal(
      traceImage(noise1024, TRACE_PRESETS.general, { ...budget(), limits: { maxSourcePixels: 1_000_000 } }),
    );
    expect(code).toBe('TRACE_SOURCE_TOO_LARGE');
    expect(details).toMatchObject({ width: 1024, height: 1024, maxSourcePixels: 1_000_000 });
  });

  it('past its budget a trace ends TRACE_TIMEOUT, and on cancel JOB_CANCELLED; the slots are free again at once', async () => {
    const heavy = { ...budget(), limits: { maxPaths: 1e9, maxSvgBytes: 1e10 } };
    for (let round = 0; round < 3; round += 1) {
      const timedOut = await refusal(traceImage(noise1024, MOST_DETAILED, { ...heavy, budgetMs: 300 }));
      expect(timedOut.code).toBe('TRACE_TIMEOUT');
      const client = new AbortController();
      const cancelled = refusal(traceImage(noise1024, MOST_DETAILED, { ...heavy, signal: client.signal }));
      setTimeout(() => client.abort(), 200);
      expect((await cancelled).code).toBe('JOB_CANCELLED');
    }
    // Had a stopped trace kept its slot, this one would wait behind six of them and time out.
    const ordinary = await traceImage(await noisePng(64), TRACE_PRESETS.poster, budget(20_000));
    expect(ordinary.svg).toMatch(/^<\?xml|^<svg/);
    expect(ordinary.tracedSize).toEqual({ width: 64, height: 64 });
  });
});
