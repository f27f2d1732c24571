import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { EXIT_CODES } from '../../common/errors.js';
import type { AssetRecord, VideoAnalysis, VideoResult } from '../../studio/api/index.js';
import { CliError } from '../client.js';
import { commandContext } from '../context.js';
import type { Output } from '../output.js';
import { download, fileAsDataUrl, laneOptions, splitTarget, streamJob, timeoutMs, type EventLine } from './generate.js';
import { isMcpTarget, mcpBody, runMcpCommand } from './mcp-job.js';
import { prepareOut, singlePath, writeOut, type OutTarget } from '../out-target.js';

// `svc video`: text, image and reference to video (and storyboards), then
// `svc video edit|extend|frame|analyze`. Each job follows its own event stream
// (planning, submitted, progress with a bar on a terminal, done); --json prints
// one JSON document. Without --model the studio uses the saved video target.

interface VideoOptions {
  model?: string;
  provider?: string;
  duration?: string;
  resolution?: string;
  aspect?: string;
  ref?: string[];
  option?: string[];
  plannerModel?: string;
  storyboard?: string;
  out?: string;
  mkdir?: boolean;
  requestId?: string;
  timeout?: string;
}

/** A local file becomes a data URL; anything else is a history name the studio looks up. */
const reference = (value: string): Promise<string> | string => (existsSync(value) ? fileAsDataUrl(value) : value);

const seconds = (value: string | undefined, flag: string): number | undefined => {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number)) throw new CliError(`${flag} must be a number of seconds, got "${value}".`, EXIT_CODES.usage, 'USAGE');
  return number;
};

async function storyboardOf(path: string | undefined): Promise<unknown> {
  if (!path) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new CliError(`Cannot read the storyboard ${path}: ${(error as Error).message}`, EXIT_CODES.usage, 'USAGE');
  }
  // A bare list of clips is the storyboard's `clips`.
  return Array.isArray(parsed) ? { clips: parsed } : parsed;
}

const BAR_WIDTH = 20;

/** The progress line of a video job's events. */
const videoEventLine: EventLine = (event) => {
  const clip = typeof event.clips === 'number' && event.clips > 1 ? `clip ${String(event.clip)}/${event.clips} · ` : '';
  if (event.event === 'planning') return `${clip}planning (${String(event.plannerModel)})`;
  if (event.event === 'submitted') return `${clip}submitted ${String(event.model)}`;
  if (event.event === 'progress' && typeof event.fraction === 'number') {
    const filled = Math.round(event.fraction * BAR_WIDTH);
    return `${clip}[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${Math.round(event.fraction * 100)}%${event.stalled ? ' (stalled)' : ''}`;
  }
  return undefined;
};

function describe(out: Output, result: VideoResult, saved: string | undefined): string {
  const line = (asset: AssetRecord, where?: string) =>
    `${out.color.green('✓')} ${where ?? asset.filename}  ${out.color.dim(`${asset.video?.durationSeconds ?? '?'} s ${asset.width}x${asset.height} ${asset.video?.codec ?? ''} · ${asset.provider}/${asset.model}`)}`;
  const clips = (result.clips ?? []).map((clip, index) => `  clip ${index + 1}: ${line(clip)}`);
  return [...clips, line(result.video, saved)].join('\n');
}

async function runVideoJob(
  command: Command,
  path: string,
  body: Record<string, unknown>,
  options: { out?: string; mkdir?: boolean; timeout?: string },
): Promise<void> {
  const { client, out } = commandContext(command);
  // -o is checked before the job runs: a path that cannot be written costs no video.
  prepareOut(options.out, options);
  const result = await streamJob<VideoResult>(
    client,
    out,
    path,
    { ...body, requestId: body.requestId ?? randomUUID(), cancelOnDisconnect: false },
    timeoutMs(options.timeout),
    videoEventLine,
  );
  const [saved] = await download(client, [result.video], options.out, { ...options, output: out });
  out.result({ ...result, ...(saved ? { saved } : {}) }, () => describe(out, result, saved));
}

const targetOptions = (command: Command): Command =>
  command
    .option(
      '-m, --model <lane/model>',
      'video model, optionally with its lane (e.g. alpha-api/alpha-video, zeta/seedance-2); default: the saved video target',
    )
    .option('-p, --provider <lane>', 'a lane with video models (svc models: alpha, alpha-api, ...)')
    .option('--planner-model <model>', 'planner that writes the final prompt (alpha-4.3, alpha-4.5, alpha-4.6)')
    .option('-o, --out <file|dir/>', 'also write the MP4 here (a directory: under its history name)')
    .option('--mkdir', 'with -o: create missing directories')
    .option('--request-id <id>', 'your own request id (default: a new UUID)')
    .option('--timeout <seconds>', 'how long to wait for the result', '900');

const laneFields = (options: VideoOptions): Record<string, unknown> => {
  const { provider, model } = splitTarget(options.model, options.provider);
  return Object.fromEntries(
    Object.entries({ provider, model, plannerModel: options.plannerModel, requestId: options.requestId }).filter(
      ([, value]) => value !== undefined,
    ),
  );
};

export function registerVideo(program: Command): void {
  const video = targetOptions(
    program
      .command('video')
      .argument('[prompt]', 'what the video shows (optional with --storyboard)')
      .option(
        '-d, --duration <seconds>',
        'length in whole seconds, as the model allows (alpha: 1-15; reference-to-video 15 on alpha-video-1.5, 10 on alpha-video)',
      )
      .option('-r, --resolution <res>', "e.g. 480p, 720p, 1080p (the model's own: svc models)")
      .option('-a, --aspect <ratio>', "e.g. 16:9, 1:1, 9:16 (the model's own: svc models)")
      .option(
        '--ref <file|history name>',
        'reference image (repeatable): 1 = image-to-video (its first frame), more = reference-to-video (alpha: 2-14)',
        (value: string, previous: string[] = []) => [...previous, value],
      )
      .option(
        '--option <name=value>',
        "one of the model's own parameters, e.g. generateAudio=false (repeatable; see `svc capabilities`)",
        (value: string, previous: string[] = []) => [...previous, value],
      )
      .option(
        '--storyboard <file>',
        'JSON: { "clips": [{ "prompt": "...", "duration": 3 }, ...] } (2-8 clips, each continuing from the last frame of the one before)',
      )
      .description('Make a video (text, image or reference to video, or a storyboard); also: video edit|extend|frame|analyze'),
  ).action(async (prompt: string | undefined, options: VideoOptions, command: Command) => {
    if (!prompt && !options.storyboard) throw new CliError('Give a prompt or --storyboard <file>.', EXIT_CODES.usage, 'USAGE');
    // An MCP lane's job goes to POST /api/mcp/generate (spec: the CLI submits MCP jobs there): duration and
    // resolution are the model's parameters, --aspect its ratio, --ref gallery files.
    const target = splitTarget(options.model, options.provider);
    if (isMcpTarget(target.provider)) {
      const parameters = {
        ...laneOptions(options.option),
        ...(options.duration !== undefined ? { duration: seconds(options.duration, '--duration') } : {}),
        ...(options.resolution ? { resolution: options.resolution } : {}),
      };
      await runMcpCommand(
        command,
        mcpBody('video', prompt ?? '', target, { parameters, ratio: options.aspect, refs: options.ref, requestId: options.requestId }),
        { out: options.out, mkdir: options.mkdir, timeoutMs: timeoutMs(options.timeout) },
      );
      return;
    }
    const body: Record<string, unknown> = {
      ...laneFields(options),
      ...(prompt ? { prompt } : {}),
      ...(options.duration !== undefined ? { duration: seconds(options.duration, '--duration') } : {}),
      ...(options.resolution ? { resolution: options.resolution } : {}),
      ...(options.aspect ? { aspectRatio: options.aspect } : {}),
    };
    const own = laneOptions(options.option);
    if (own) body.options = own;
    if (options.ref?.length) body.references = await Promise.all(options.ref.map(reference));
    const storyboard = await storyboardOf(options.storyboard);
    if (storyboard !== undefined) body.storyboard = storyboard;
    await runVideoJob(command, '/api/video/generate', body, options);
  });

  targetOptions(
    video
      .command('edit')
      .argument('<video>', 'a generated MP4 of history (its file name)')
      .argument('<prompt>', 'what to change')
      .description('Video-to-video edit of a generated MP4 (saves a new MP4)'),
  ).action(async (source: string, prompt: string, _options: VideoOptions, command: Command) => {
    // `svc video`'s own options come before or after the subcommand alike: read them merged.
    const options = command.optsWithGlobals<VideoOptions>();
    await runVideoJob(command, '/api/video/edit', { ...laneFields(options), prompt, video: source }, options);
  });

  targetOptions(
    video
      .command('extend')
      .argument('<video>', 'a generated MP4 of history, or an https URL of an MP4')
      .argument('<prompt>', 'what happens next')
      .option('-d, --duration <seconds>', 'seconds to add (1-15)')
      .description('Extend a video from its last frame (saves the longer MP4)'),
  ).action(async (source: string, prompt: string, _options: VideoOptions, command: Command) => {
    const options = command.optsWithGlobals<VideoOptions>();
    const from = /^https?:\/\//i.test(source) ? { url: source } : { video: source };
    await runVideoJob(
      command,
      '/api/video/extend',
      {
        ...laneFields(options),
        prompt,
        ...from,
        ...(options.duration !== undefined ? { duration: seconds(options.duration, '--duration') } : {}),
      },
      options,
    );
  });

  video
    .command('frame')
    .argument('<video>', 'a generated MP4 of history')
    .option('--at <when>', 'first, last, or a time in seconds', 'first')
    .option('-o, --out <file>', 'where to write the PNG (required)')
    .description('Write one frame of a generated MP4 as a PNG')
    .action(async (source: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<{ at: string; out?: string }>();
      if (!options.out) throw new CliError('svc video frame needs -o <file.png>.', EXIT_CODES.usage, 'USAGE');
      const frameTarget = prepareOut(options.out) as OutTarget;
      const { client, out } = commandContext(command);
      const response = await client.fetch(
        'GET',
        `/api/video/frame?filename=${encodeURIComponent(source)}&at=${encodeURIComponent(options.at)}`,
        { timeoutMs: 60_000 },
      );
      const bytes = new Uint8Array(await response.arrayBuffer());
      const target = singlePath(frameTarget, `${source.replace(/\.[^.]+$/, '')}-${options.at}.png`);
      writeOut(target, bytes);
      out.result(
        { filename: source, at: options.at, saved: target, bytes: bytes.length },
        () => `${out.color.green('✓')} ${target}  ${out.color.dim(`${options.at} frame of ${source}`)}`,
      );
    });

  video
    .command('analyze')
    .argument('<video>', 'a generated MP4 of history')
    .option('-p, --provider <lane>', 'a lane with video models (svc models: alpha, alpha-api, ...)')
    .option('--planner-model <model>', 'the model that describes the frames')
    .description('Describe the first and last frames of a generated MP4 with the planner model')
    .action(async (source: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<{ provider?: string; plannerModel?: string }>();
      const { client, out } = commandContext(command);
      const body = {
        video: source,
        ...(options.provider ? { provider: options.provider } : {}),
        ...(options.plannerModel ? { plannerModel: options.plannerModel } : {}),
      };
      const analysis = await client.json<VideoAnalysis>('POST', '/api/video/analyze', { body, timeoutMs: 300_000 });
      out.result(
        analysis,
        () => `first (0 s): ${analysis.first.description}\nlast (${analysis.last.atSeconds} s): ${analysis.last.description}`,
      );
    });
}
