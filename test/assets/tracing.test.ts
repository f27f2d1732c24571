import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobRecord, jobSummary, type AssetRecord, type GenerationResult } from '../../src/studio/api/index.js';
import { checkSvg } from '../../src/studio/media/svg.js';
import { collectEvents, startRig, type Rig } from '../generate/rig.js';

// POST /api/assets/derived?kind=vector-svg: a stored raster traced to SVG,
// saved as an asset of its own; and POST /api/assets, how a local file gets
// into history to be traced.

let rig: Rig;
let source: AssetRecord;

beforeAll(async () => {
  rig = await startRig();
  const response = await rig.post('/api/generate', { prompt: 'a red lighthouse on blue water', provider: 'api' });
  source = ((await response.json()) as GenerationResult).images[0];
});

afterAll(async () => {
  await rig.stop();
});

const trace = (query: string) => fetch(`${rig.studio.url}/api/assets/derived?${query}`, { method: 'POST' });
const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string; details?: Record<string, unknown> } }).error;

describe('tracing to SVG', () => {
  it('answers 201 with an SVG asset that names its source, served as SVG with a CSP, holding no script', async () => {
    const response = await trace(`kind=vector-svg&source=${source.filename}`);
    expect(response.status).toBe(201);
    const svg = (await response.json()) as AssetRecord;
    expect(svg).toMatchObject({
      format: 'svg',
      kind: 'vector-svg',
      derivedFrom: source.filename,
      prompt: source.prompt,
      provider: 'vector',
      width: 1024,
      height: 1024,
    });
    expect(svg.filename).toMatch(/\.svg$/);
    expect(svg.settings).toMatchObject({
      preset: 'general',
      derivedFrom: source.filename,
      pathCount: expect.any(Number),
      tracedSize: { width: 1024, height: 1024 },
    });
    expect(svg.settings.pathCount as number).toBeGreaterThan(0);

    const file = await rig.get(svg.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/svg+xml');
    expect(file.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    const text = await file.text();
    expect(() => checkSvg(text)).not.toThrow();
    expect(text).not.toMatch(/<script|\son\w+=/i);
    expect(text).toContain('svc-metadata');
    // A raster thumbnail of it, and history lists it by its source's words.
    expect((await rig.get(svg.thumbnailUrl)).headers.get('content-type')).toBe('image/webp');
    const found = (await (await rig.get('/api/history?q=lighthouse')).json()) as { items: AssetRecord[] };
    expect(found.items.map((item) => item.format)).toEqual(['svg', 'png']);
  });

  it('takes a preset and single parameters within their ranges', async () => {
    for (const preset of ['poster', 'photo', 'line-art']) {
      const response = await trace(`kind=vector-svg&source=${source.filename}&preset=${preset}`);
      expect(response.status, preset).toBe(201);
      expect(((await response.json()) as AssetRecord).settings.preset).toBe(preset);
    }
    const tuned = await trace(`kind=vector-svg&source=${source.filename}&preset=poster&colorPrecision=3&mode=polygon`);
    expect(tuned.status).toBe(201);
    expect(((await tuned.json()) as AssetRecord).settings.parameters).toMatchObject({
      colorPrecision: 3,
      mode: 'polygon',
      filterSpeckle: 8,
    });
  });

  it('refuses an unknown preset, a parameter out of range or unknown, a missing or non-raster source, with codes', async () => {
    const cases: [string, number, string][] = [
      [`kind=vector-svg&source=${source.filename}&preset=oil-painting`, 400, 'TRACE_PRESET_UNKNOWN'],
      [`kind=vector-svg&source=${source.filename}&colorPrecision=12`, 400, 'TRACE_PARAMETER_INVALID'],
      [`kind=vector-svg&source=${source.filename}&mode=curvy`, 400, 'TRACE_PARAMETER_INVALID'],
      [`kind=vector-svg&source=${source.filename}&sharpness=3`, 400, 'TRACE_PARAMETER_INVALID'],
      ['kind=vector-svg', 400, 'TRACE_PARAMETER_INVALID'],
      [`kind=bitmap&source=${source.filename}`, 400, 'TRACE_PARAMETER_INVALID'],
      ['kind=vector-svg&source=20250101-000000-gone-0000000000.png', 404, 'TRACE_SOURCE_NOT_FOUND'],
      ['kind=vector-svg&source=..%2Fconfig.json', 400, 'INVALID_FILENAME'],
    ];
    for (const [query, status, code] of cases) {
      const response = await trace(query);
      expect(response.status, query).toBe(status);
      expect((await errorOf(response)).code, query).toBe(code);
    }
    const svg = (await (await trace(`kind=vector-svg&source=${source.filename}&preset=line-art`)).json()) as AssetRecord;
    const again = await trace(`kind=vector-svg&source=${svg.filename}`);
    expect(again.status).toBe(415);
    expect((await errorOf(again)).code).toBe('TRACE_SOURCE_UNSUPPORTED');
  });

  it('is a job of kind trace: async with a requestId, typed in GET /api/jobs, the same request once, its events on a stream', async () => {
    const query = `kind=vector-svg&source=${source.filename}&preset=poster&async=true&requestId=trace-async-1`;
    const accepted = await trace(query);
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toEqual({ requestId: 'trace-async-1', status: 'accepted' });
    let record = jobRecord.parse(await (await rig.get('/api/jobs/trace-async-1')).json());
    for (let tries = 0; tries < 200 && record.finishedAt === null; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      record = jobRecord.parse(await (await rig.get('/api/jobs/trace-async-1')).json());
    }
    expect(record).toMatchObject({ kind: 'trace', state: 'succeeded', provider: null, model: 'vtracer', error: null });
    if (record.kind !== 'trace' || !record.result) throw new Error('a trace record with its result was expected');
    expect(record.request).toMatchObject({
      kind: 'vector-svg',
      source: source.filename,
      preset: 'poster',
      parameters: { colorPrecision: 4, filterSpeckle: 8 },
    });
    expect(record.result).toMatchObject({ format: 'svg', derivedFrom: source.filename, requestId: 'trace-async-1' });
    expect(jobSummary(record)).toEqual({ prompt: null, size: null, outputs: 1, source: source.filename });

    // The same requestId and query again: the same job, no second SVG.
    const before = ((await (await rig.get('/api/history?kind=vector-svg&limit=100')).json()) as { items: AssetRecord[] }).items.length;
    expect((await trace(query)).status).toBe(202);
    const after = ((await (await rig.get('/api/history?kind=vector-svg&limit=100')).json()) as { items: AssetRecord[] }).items.length;
    expect(after).toBe(before);
    // Another query with that requestId is refused; async without a requestId too.
    expect((await errorOf(await trace(`kind=vector-svg&source=${source.filename}&async=true&requestId=trace-async-1`))).code).toBe(
      'REQUEST_ID_IN_USE',
    );
    expect((await errorOf(await trace(`kind=vector-svg&source=${source.filename}&async=true`))).code).toBe('REQUEST_ID_REQUIRED');

    // Per-request SSE: queued, rendering, saving, then done with the SVG's record.
    const streamed = await fetch(`${rig.studio.url}/api/assets/derived?kind=vector-svg&source=${source.filename}&requestId=trace-sse-1`, {
      method: 'POST',
      headers: { accept: 'text/event-stream' },
    });
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    const events = await collectEvents(streamed);
    expect(events.map((event) => (event.event === 'phase' ? event.phase : event.event))).toEqual(['queued', 'rendering', 'saving', 'done']);
    expect(events.at(-1)).toMatchObject({ event: 'done', kind: 'trace', result: { format: 'svg', requestId: 'trace-sse-1' } });
  });

  it('keeps the derived asset when its source is deleted', async () => {
    const svg = (await (await trace(`kind=vector-svg&source=${source.filename}&preset=poster`)).json()) as AssetRecord;
    expect((await fetch(`${rig.studio.url}/api/history/${source.filename}`, { method: 'DELETE' })).status).toBe(200);
    expect((await rig.get(`/api/history/${svg.filename}`)).status).toBe(200);
    expect((await rig.get(svg.url)).status).toBe(200);
    expect((await fetch(`${rig.studio.url}/api/history/${source.filename}/restore`, { method: 'POST' })).status).toBe(200);
  });

  it('stays responsive while traces run: the event loop keeps turning and other requests are answered', async () => {
    // A loop-delay probe that counts instead of timing (this test's process is
    // the studio's): over four traces a 1 ms timer chain ticked 258 times and
    // /api/health answered 416 times with the tracer on other threads; with the
    // binding's synchronous call in its place, 44 and 36.
    let ticks = 0;
    let tracing = true;
    const tick = () => {
      if (!tracing) return;
      ticks += 1;
      setTimeout(tick, 1);
    };
    setTimeout(tick, 1);
    const traces = Array.from({ length: 4 }, (_, index) =>
      trace(`kind=vector-svg&source=${source.filename}&preset=photo&filterSpeckle=${index + 1}`),
    );
    const all = Promise.all(traces).finally(() => (tracing = false));
    let answeredDuring = 0;
    while (tracing) {
      const health = await rig.get('/api/health');
      if (health.status === 200 && tracing) answeredDuring += 1;
    }
    for (const response of await all) expect(response.status).toBe(201);
    expect(ticks).toBeGreaterThan(100);
    expect(answeredDuring).toBeGreaterThan(100);
  });
});

describe('importing an image', () => {
  it('takes a real image (201, kind import) and refuses a "JPEG" that is not an image', async () => {
    const png = Buffer.from(await (await rig.get(source.url)).arrayBuffer());
    const imported = await rig.post('/api/assets', { data: `data:image/png;base64,${png.toString('base64')}`, name: 'my scan' });
    expect(imported.status).toBe(201);
    expect(await imported.json()).toMatchObject({ kind: 'import', provider: 'import', prompt: 'my scan', format: 'png' });
    const fake = await rig.post('/api/assets', {
      data: `data:image/jpeg;base64,${Buffer.from('this is not a picture at all').toString('base64')}`,
      name: 'fake.jpg',
    });
    expect(fake.status).toBe(415);
    expect((await errorOf(fake)).code).toBe('REFERENCE_TYPE_UNSUPPORTED');
  });
});

describe('svc trace', () => {
  it('uploads a local file through the API, traces it and writes the SVG', async () => {
    const { mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { runSvc } = await import('../helpers/svc.js');
    const dir = mkdtempSync(join(tmpdir(), 'svc-trace-'));
    const local = join(dir, 'lighthouse.png');
    writeFileSync(local, Buffer.from(await (await rig.get(source.url)).arrayBuffer()));
    const out = join(dir, 'lighthouse.svg');
    const result = await runSvc([
      'trace',
      local,
      '--preset',
      'poster',
      '--param',
      'colorPrecision=3',
      '-o',
      out,
      '--json',
      '--server',
      rig.studio.url,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const svg = JSON.parse(result.stdout) as AssetRecord & { saved: string };
    expect(svg).toMatchObject({ format: 'svg', saved: out, settings: { preset: 'poster', parameters: { colorPrecision: 3 } } });
    expect(() => checkSvg(readFileSync(out, 'utf8'))).not.toThrow();
    // The upload is an asset of its own, named after the file.
    expect(((await (await rig.get(`/api/history/${svg.derivedFrom}`)).json()) as AssetRecord).prompt).toBe('lighthouse.png');
    // A file that is not an image is refused by the studio, with its code.
    const fake = join(dir, 'fake.jpg');
    writeFileSync(fake, 'not an image');
    const refused = await runSvc(['trace', fake, '--server', rig.studio.url]);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('REFERENCE_TYPE_UNSUPPORTED');
  });
});
