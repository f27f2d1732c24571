import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import type { TraceLimits, TraceParameters } from './presets.js';

// One trace runs in a child process of its own, which ends with it. VTracer
// cannot be stopped once started and keeps what it allocated (gigabytes on a
// noisy image): a process is the one place where stopping it is a kill and
// its memory is given back at once. The child decodes, estimates, traces and
// checks; the studio only pipes bytes, so its event loop stays free.
//
// The wire: the source image on stdin; the SVG on stdout; one JSON line on
// stderr, the outcome (success with sizes, or a refusal with a code).

export interface TracerJob {
  readonly parameters: TraceParameters;
  readonly maxSide: number;
  readonly limits: TraceLimits;
}

type Size = { width: number; height: number };

/** What the child said in its last stderr line. */
export type TracerOutcome =
  | { readonly ok: true; readonly sourceSize: Size; readonly tracedSize: Size; readonly tracerMs: number }
  | {
      readonly ok: false;
      readonly code: 'TRACE_TOO_COMPLEX' | 'TRACE_SOURCE_TOO_LARGE' | 'TRACE_FAILED';
      readonly message: string;
      readonly details?: Record<string, unknown>;
    };

export type TracerResult =
  | { readonly kind: 'done'; readonly svg: Buffer; readonly outcome: TracerOutcome }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'crashed'; readonly reason: string };

// Plain CommonJS, run with `-e`: no file to locate next to a bundle. Module
// paths come as arguments (resolved by the studio, which knows where they are).
// A refusal while the binding may be running ends with SIGKILL: a normal exit
// would wait for libuv's pool thread, that is for the trace it refuses.
const TRACER_SOURCE = String.raw`
'use strict';
const fs = require('node:fs');
const [sharpPath, vectorizerPath, jobJson] = process.argv.slice(1);
const job = JSON.parse(jobJson);
const { limits } = job;
const parent = process.ppid;
const say = (outcome) => fs.writeSync(2, '\n' + JSON.stringify(outcome) + '\n');
const refuse = (code, message, details) => { say({ ok: false, code, message, details }); process.kill(process.pid, 'SIGKILL'); };
const FEWER = ' Try a preset with fewer colors (poster), a larger filterSpeckle or a smaller colorPrecision.';
const tooComplex = (reason, message, details) => refuse('TRACE_TOO_COMPLEX', message, { reason, ...details });

// Memory is checked from here, since the binding runs on a pool thread; and a studio that died takes its tracer with it.
const watch = setInterval(() => {
  if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL');
  const rss = process.memoryUsage.rss();
  if (rss > limits.maxMemoryBytes) tooComplex('memory', 'Tracing this image needed more than ' + Math.round(limits.maxMemoryBytes / 1048576) + ' MB of memory.' + FEWER, { maxMemoryBytes: limits.maxMemoryBytes });
}, 50);
watch.unref();

const read = async () => { const chunks = []; for await (const chunk of process.stdin) chunks.push(chunk); return Buffer.concat(chunks); };
const countPaths = (svg) => { let count = 0; for (let at = svg.indexOf('<path'); at !== -1; at = svg.indexOf('<path', at + 5)) count += 1; return count; };

// A few tiles spread over the image, traced as they are: paths and bytes per pixel
// carry over to the whole image well (a photo: 20k estimated for 23k; noise: exact).
const TILE = 128;
const SPOTS = [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]];
async function estimate(vectorizeRaw, config, data, width, height) {
  if (width * height < 4 * SPOTS.length * TILE * TILE) return undefined;
  let paths = 0;
  let bytes = 0;
  for (const [fx, fy] of SPOTS) {
    const x0 = Math.min(width - TILE, Math.max(0, Math.round(fx * width - TILE / 2)));
    const y0 = Math.min(height - TILE, Math.max(0, Math.round(fy * height - TILE / 2)));
    const tile = Buffer.alloc(TILE * TILE * 4);
    for (let y = 0; y < TILE; y++) data.copy(tile, y * TILE * 4, ((y0 + y) * width + x0) * 4, ((y0 + y) * width + x0 + TILE) * 4);
    const svg = await vectorizeRaw(tile, { width: TILE, height: TILE }, config).catch(() => '');
    paths += countPaths(svg);
    bytes += Buffer.byteLength(svg);
  }
  const scale = (width * height) / (SPOTS.length * TILE * TILE);
  return { paths: Math.round(paths * scale), bytes: Math.round(bytes * scale) };
}

(async () => {
  const sharp = require(sharpPath);
  const { vectorizeRaw, ColorMode, Hierarchical, PathSimplifyMode } = require(vectorizerPath);
  const p = job.parameters;
  const config = {
    ...p,
    colorMode: p.colorMode === 'binary' ? ColorMode.Binary : ColorMode.Color,
    hierarchical: p.hierarchical === 'cutout' ? Hierarchical.Cutout : Hierarchical.Stacked,
    mode: { none: PathSimplifyMode.None, polygon: PathSimplifyMode.Polygon, spline: PathSimplifyMode.Spline }[p.mode],
  };
  const source = await read();
  let meta;
  try {
    meta = await sharp(source).metadata();
  } catch (error) {
    return refuse('TRACE_FAILED', 'The image cannot be decoded: ' + error.message + '.');
  }
  const sourceSize = { width: meta.autoOrient.width, height: meta.autoOrient.height };
  if (sourceSize.width * sourceSize.height > limits.maxSourcePixels) {
    return refuse('TRACE_SOURCE_TOO_LARGE', 'The image is ' + sourceSize.width + 'x' + sourceSize.height + '; the studio traces at most ' + limits.maxSourcePixels / 1e6 + ' megapixels.', { ...sourceSize, maxSourcePixels: limits.maxSourcePixels });
  }
  let decoded;
  try {
    decoded = await sharp(source, { limitInputPixels: limits.maxSourcePixels })
      .autoOrient()
      .resize({ width: job.maxSide, height: job.maxSide, fit: 'inside', withoutEnlargement: true })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (error) {
    return refuse('TRACE_FAILED', 'The image cannot be decoded: ' + error.message + '.');
  }
  const { data, info } = decoded;
  const tracedSize = { width: info.width, height: info.height };
  const started = performance.now();
  const estimated = await estimate(vectorizeRaw, config, data, info.width, info.height);
  if (estimated && (estimated.paths > limits.maxPaths || estimated.bytes > limits.maxSvgBytes)) {
    return tooComplex('estimate', 'Traced with these parameters, this image would make some ' + estimated.paths + ' paths (' + Math.round(estimated.bytes / 1048576) + ' MB); the studio makes at most ' + limits.maxPaths + ' paths and ' + Math.round(limits.maxSvgBytes / 1048576) + ' MB.' + FEWER, { estimatedPaths: estimated.paths, estimatedBytes: estimated.bytes, maxPaths: limits.maxPaths, maxSvgBytes: limits.maxSvgBytes });
  }
  let svg;
  try {
    svg = await vectorizeRaw(data, { width: info.width, height: info.height }, config);
  } catch (error) {
    // The binding turns a panic of VTracer into "Unknown error occurred"; it panics on a shape too
    // intricate for it (black-and-white tracing of noise or a photograph's grain does it).
    if (/Unknown error occurred/.test(error.message)) return tooComplex('tracer', 'The tracer gave up on this image: some shape in it is too intricate to trace with these parameters (black-and-white line art of a noisy or photographic image does this). Try a color preset (poster or general) or a smoother image.', {});
    return refuse('TRACE_FAILED', 'The tracer could not trace the image: ' + error.message + '.');
  }
  const bytes = Buffer.byteLength(svg);
  const paths = countPaths(svg);
  if (paths > limits.maxPaths || bytes > limits.maxSvgBytes) {
    return tooComplex(paths > limits.maxPaths ? 'paths' : 'bytes', 'The trace made ' + paths + ' paths (' + Math.round(bytes / 1048576) + ' MB); the studio keeps at most ' + limits.maxPaths + ' paths and ' + Math.round(limits.maxSvgBytes / 1048576) + ' MB.' + FEWER, { paths, bytes, maxPaths: limits.maxPaths, maxSvgBytes: limits.maxSvgBytes });
  }
  say({ ok: true, sourceSize, tracedSize, tracerMs: Math.round(performance.now() - started) });
  process.stdout.end(svg);
})().catch((error) => refuse('TRACE_FAILED', 'The tracer failed: ' + (error && error.message) + '.'));
`;

/** Everything the child may print besides its outcome (warnings): a little is enough. */
const STDERR_MAX_BYTES = 64 * 1024;

const localRequire = createRequire(import.meta.url);
let modulePaths: [string, string] | undefined;

/** Running tracer processes: killed if the studio exits while they run. */
const running = new Set<ReturnType<typeof spawn>>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Runs one trace in its own process. Settles when the process has ended:
 * `done` with its stdout (at most `maxSvgBytes`) and its outcome, `aborted`
 * when `signal` fired (the process is killed), `crashed` otherwise.
 */
export function runTracerProcess(source: Buffer, job: TracerJob, signal: AbortSignal): Promise<TracerResult> {
  modulePaths ??= [localRequire.resolve('sharp'), localRequire.resolve('@neplex/vectorizer')];
  return new Promise((resolve) => {
    if (signal.aborted) return resolve({ kind: 'aborted' });
    // No environment: the tracer needs none, and so sees no credential; and no inherited flags.
    const child = spawn(process.execPath, ['-e', TRACER_SOURCE, ...modulePaths!, JSON.stringify(job)], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {},
      windowsHide: true,
    });
    running.add(child);
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let overflow = false;
    const kill = () => child.kill('SIGKILL');
    signal.addEventListener('abort', kill, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.byteLength;
      // The child checks its SVG before sending it; this bounds what the studio holds whatever it sends.
      if (stdoutBytes > job.limits.maxSvgBytes) {
        overflow = true;
        kill();
      } else stdout.push(chunk);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_MAX_BYTES);
    });
    // The child may die before reading all of its input; that is told by its exit, not by this pipe.
    child.stdin.on('error', () => {});
    child.stdin.end(source);
    child.once('error', (error) => {
      // The process could not start: 'close' follows.
      stderr += `\n${JSON.stringify({ ok: false, code: 'TRACE_FAILED', message: `The tracer process could not start: ${error.message}.` })}\n`;
    });
    child.once('close', (code, exitSignal) => {
      running.delete(child);
      signal.removeEventListener('abort', kill);
      if (signal.aborted) return resolve({ kind: 'aborted' });
      if (overflow) {
        const { maxPaths, maxSvgBytes } = job.limits;
        const message = `The trace is larger than ${Math.round(maxSvgBytes / 1048576)} MB, the most the studio keeps.`;
        return resolve({
          kind: 'done',
          svg: Buffer.alloc(0),
          outcome: { ok: false, code: 'TRACE_TOO_COMPLEX', message, details: { reason: 'bytes', maxPaths, maxSvgBytes } },
        });
      }
      const outcome = lastOutcome(stderr);
      if (outcome) return resolve({ kind: 'done', svg: Buffer.concat(stdout), outcome });
      resolve({ kind: 'crashed', reason: exitSignal ? `signal ${exitSignal}` : `exit code ${code}` });
    });
  });
}

/** The child's outcome: the last stderr line that is one. */
function lastOutcome(stderr: string): TracerOutcome | undefined {
  for (const line of stderr.split('\n').reverse()) {
    if (!line.startsWith('{')) continue;
    try {
      const parsed = JSON.parse(line) as TracerOutcome;
      if (typeof parsed.ok === 'boolean') return parsed;
    } catch {
      // Not ours.
    }
  }
  return undefined;
}
