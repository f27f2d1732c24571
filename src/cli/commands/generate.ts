import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { Command } from 'commander';
import { randomUUID } from 'node:crypto';
import { readSse } from '../../common/events/client.js';
import { EXIT_CODES } from '../../common/errors.js';
import { exitCodeFor } from '../../studio/errors.js';
import {
  COMMON_SIZES,
  IMAGE_FORMATS,
  isTerminalEvent,
  MODERATIONS,
  PROVIDER_IDS,
  QUALITIES,
  type AssetRecord,
  type ErrorPayload,
  type GenerationResult,
  type MultimodeResult,
} from '../../studio/api/index.js';
import { CliError, type StudioClient } from '../client.js';
import { commandContext } from '../context.js';
import type { Output } from '../output.js';
import { bytesForPath, conversionNote, type Conversion } from '../out-format.js';
import { outPath, prepareOut, writeOut } from '../out-target.js';
import { isMcpTarget, mcpBody, runMcpCommand } from './mcp-job.js';

export interface CommonOptions {
  model?: string;
  provider?: string;
  quality?: string;
  size?: string;
  format?: string;
  moderation?: string;
  negativePrompt?: string;
  ref?: string[];
  option?: string[];
  out?: string;
  /** With -o: create missing directories. */
  mkdir?: boolean;
  requestId?: string;
  timeout?: string;
}

const MIME_BY_EXTENSION: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
};

/** Reads a local image into a data URL reference; the server sniffs and checks it again. */
export async function fileAsDataUrl(path: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new CliError(
      `Cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      EXIT_CODES.usage,
      'USAGE',
    );
  }
  const mime = MIME_BY_EXTENSION[extname(path).toLowerCase()] ?? 'application/octet-stream';
  return `data:${mime};base64,${bytes.toString('base64')}`;
}

/** `--model lane/model` also sets the provider; a bare model id leaves the provider to --provider. */
export function splitTarget(target: string | undefined, provider: string | undefined): { provider?: string; model?: string } {
  if (!target) return { provider };
  const slash = target.indexOf('/');
  if (slash === -1) return { provider, model: target };
  const lane = target.slice(0, slash);
  if (provider && provider !== lane)
    throw new CliError(`--model ${target} names lane ${lane} but --provider is ${provider}.`, EXIT_CODES.usage, 'USAGE');
  return { provider: lane, model: target.slice(slash + 1) };
}

/**
 * `--option name=value` (repeatable) → the request's `options`, the lane's own controls. A value
 * that reads as JSON (a number, true/false, null, a quoted string) is sent as that; anything else
 * as the text itself.
 */
export function laneOptions(pairs: readonly string[] | undefined): Record<string, unknown> | undefined {
  if (!pairs?.length) return undefined;
  const options: Record<string, unknown> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new CliError(`--option takes name=value, got "${pair}".`, EXIT_CODES.usage, 'USAGE');
    const text = pair.slice(equals + 1);
    let value: unknown = text;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed === null || ['number', 'boolean', 'string'].includes(typeof parsed)) value = parsed;
    } catch {
      // Plain text.
    }
    options[pair.slice(0, equals)] = value;
  }
  return options;
}

export async function requestBody(prompt: string, options: CommonOptions): Promise<Record<string, unknown>> {
  // -o is checked before the job runs: a path that cannot be written costs no generation.
  prepareOut(options.out, options);
  const { provider, model } = splitTarget(options.model, options.provider);
  const references = await Promise.all((options.ref ?? []).map(fileAsDataUrl));
  const body: Record<string, unknown> = {
    prompt,
    provider,
    model,
    quality: options.quality,
    size: options.size,
    format: options.format,
    moderation: options.moderation,
    negativePrompt: options.negativePrompt,
    options: laneOptions(options.option),
    requestId: options.requestId ?? randomUUID(),
    // A client timeout must not lose the work: the job finishes and lands in history.
    // Ctrl-C cancels explicitly (see streamJob).
    cancelOnDisconnect: false,
  };
  if (references.length) body.references = references;
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

export function timeoutMs(option: string | undefined): number {
  const seconds = option === undefined ? 600 : Number(option);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new CliError(`--timeout must be a number of seconds, got "${option}".`, EXIT_CODES.usage, 'USAGE');
  return seconds * 1000;
}

/**
 * Posts a generation with `Accept: text/event-stream` and follows its own
 * event stream: progress on stderr (TTY only), the result from `done`.
 */
export async function streamJob<T>(
  client: StudioClient,
  out: Output,
  path: string,
  body: Record<string, unknown>,
  timeout: number,
  describe?: EventLine,
): Promise<T> {
  const requestId = String(body.requestId);
  const recovery = `The studio keeps working on it: find the result later with \`svc history ls --json\` (requestId ${requestId}), or check \`svc inflight ls\`.`;
  const posted = client.fetch('POST', path, { body, headers: { accept: 'text/event-stream' }, timeoutMs: timeout });

  // Ctrl-C means "stop": cancel the job on the server, then exit like an interrupted program.
  // The studio registers the job before it answers, so a Ctrl-C that comes before the answer
  // waits for it (a second Ctrl-C leaves at once).
  let interrupted = false;
  const cancel = () =>
    client
      .fetch('DELETE', `/api/inflight/${encodeURIComponent(requestId)}`, { timeoutMs: 5_000 })
      .catch(() => undefined)
      .finally(() => {
        // One line: the progress line (if any) is cleared, and the stream's own cancel error is not printed.
        if (out.json)
          process.stdout.write(
            `${JSON.stringify({ error: { code: 'INTERRUPTED', message: `Cancelled ${requestId} (Ctrl-C).`, details: { requestId } } })}\n`,
          );
        else process.stderr.write(`${process.stderr.isTTY ? '\r\u001b[2K' : ''}svc: cancelled ${requestId} (Ctrl-C)\n`);
        process.exit(130);
      });
  const onInterrupt = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    posted.then(cancel, cancel);
  };
  process.on('SIGINT', onInterrupt);
  try {
    let response: Response;
    try {
      response = await posted;
    } catch (error) {
      if (error instanceof CliError && error.code === 'CLIENT_TIMEOUT')
        throw new CliError(`Timed out waiting for ${requestId}. ${recovery}`, EXIT_CODES.timeout, 'CLIENT_TIMEOUT', { requestId });
      throw error;
    }
    // A server that answers the stream request with plain JSON (an older or another studio) gave the result itself.
    if (!/text\/event-stream/i.test(response.headers.get('content-type') ?? '')) return (await response.json().catch(() => undefined)) as T;
    return await followStream<T>(response, requestId, recovery, out, describe);
  } catch (error) {
    // After Ctrl-C the cancel says the one line and exits; whatever the stream ends with is not news.
    if (interrupted) return await new Promise<never>(() => undefined);
    throw error;
  } finally {
    process.removeListener('SIGINT', onInterrupt);
  }
}

/** A command's own progress line for an event it knows (video: planning, submitted, progress); undefined leaves the line as it is. */
export type EventLine = (event: Record<string, unknown>) => string | undefined;

async function followStream<T>(response: Response, requestId: string, recovery: string, out: Output, describe?: EventLine): Promise<T> {
  const live = process.stderr.isTTY && !out.json;
  let partials = 0;
  let phase = '';
  const show = () =>
    live &&
    process.stderr.write(
      `\r\u001b[2K${out.color.dim(`${requestId.slice(0, 8)}`)} ${phase}${partials ? ` · ${partials} partial${partials > 1 ? 's' : ''}` : ''}`,
    );
  try {
    for await (const message of readSse(response.body as ReadableStream<Uint8Array>)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(message.data);
      } catch {
        continue; // a frame that is not JSON carries nothing for us
      }
      if (!parsed || typeof parsed !== 'object') continue;
      // The event's name is in the payload (this studio) or on the standard `event:` line (others).
      const event = { ...(parsed as { event?: string; phase?: string; result?: T; error?: ErrorPayload; slot?: number }) };
      event.event = typeof event.event === 'string' ? event.event : message.event;
      const line = describe?.(event);
      if (line !== undefined) {
        phase = line;
        show();
      } else if (event.event === 'phase') {
        // flow: the place in the node-graph server's own queue.
        const place = (event as { queuePosition?: unknown }).queuePosition;
        phase = typeof place === 'number' ? `${event.phase} (#${place} in the server's queue)` : (event.phase ?? phase);
        show();
      } else if (event.event === 'progress' && typeof (event as { value?: unknown }).value === 'number') {
        // flow: the server's step progress.
        const { value, max } = event as { value: number; max?: number };
        phase = `rendering · step ${value}${typeof max === 'number' ? `/${max}` : ''}`;
        show();
      } else if (event.event === 'partial') {
        partials += 1;
        show();
      } else if (event.event === 'done' && isTerminalEvent({ event: event.event, slot: event.slot })) {
        if (live) process.stderr.write('\r\u001b[2K');
        if (event.result !== undefined) return event.result;
      } else if (event.event === 'error' && isTerminalEvent({ event: event.event, slot: event.slot })) {
        if (live) process.stderr.write('\r\u001b[2K');
        const error =
          event.error && typeof event.error === 'object'
            ? event.error
            : { code: 'INTERNAL_ERROR', message: typeof event.error === 'string' ? event.error : 'The job failed.' };
        throw new CliError(String(error.message), exitCodeFor(error.code), error.code, error.details);
      }
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    if ((error as Error).name === 'TimeoutError')
      throw new CliError(`Timed out waiting for ${requestId}. ${recovery}`, EXIT_CODES.timeout, 'CLIENT_TIMEOUT', { requestId });
    throw new CliError(`The event stream broke before the result arrived. ${recovery}`, EXIT_CODES.unreachable, 'STREAM_BROKEN', {
      requestId,
    });
  }
  throw new CliError(`The stream ended without a result. ${recovery}`, EXIT_CODES.upstream, 'STREAM_ENDED', { requestId });
}

/** Writes the images to `-o` (a directory: each under its history name; a file: `name-2.png` style for several). */
/**
 * Downloads each asset to `-o`; a file whose extension names another image format than the lane
 * made is converted (out-format.ts), said on stderr and listed in `options.conversions`.
 */
export async function download(
  client: StudioClient,
  images: unknown,
  out: string | undefined,
  options: { readonly mkdir?: boolean; readonly output?: Output; readonly conversions?: Conversion[] } = {},
): Promise<string[]> {
  const target = prepareOut(out, options);
  if (!target || !Array.isArray(images)) return [];
  const written: string[] = [];
  for (const [index, image] of (images as AssetRecord[]).entries()) {
    const response = await client.fetch('GET', image.url, { timeoutMs: 60_000 });
    const path = outPath(target, image.filename, index, images.length, image.format);
    const { bytes, conversion } = await bytesForPath(path, Buffer.from(await response.arrayBuffer()), image);
    writeOut(path, new Uint8Array(bytes), image.filename);
    if (conversion) {
      options.conversions?.push(conversion);
      options.output?.note(conversionNote(conversion));
    }
    written.push(path);
  }
  return written;
}

/** The result printed with `--json`: the job's, where its files went, and what was converted. */
const savedResult = (result: object, saved: string[], conversions: Conversion[]) => ({
  ...result,
  saved,
  ...(conversions.length ? { converted: conversions } : {}),
});

export function describeImage(out: Output, image: AssetRecord, savedTo: string | undefined): string {
  const where = savedTo ?? image.filename;
  return `${out.color.green('✓')} ${where}  ${out.color.dim(`${image.width}x${image.height} ${image.format} · ${image.provider}/${image.model}`)}`;
}

export const withCommonOptions = (command: Command): Command =>
  command
    .option('-m, --model <lane/model>', 'model, optionally with its lane (e.g. api/lang-5.6-sol)')
    .option('-p, --provider <lane>', `lane: ${PROVIDER_IDS.join(', ')}`)
    .option('-q, --quality <quality>', QUALITIES.join(', '))
    .option('-s, --size <WxH>', `size, e.g. ${COMMON_SIZES.slice(0, 3).join(', ')}`)
    .option('-f, --format <format>', IMAGE_FORMATS.join(', '))
    .option('--moderation <level>', MODERATIONS.join(', '))
    .option('--negative-prompt <text>', 'epsilon lane only')
    .option('--ref <file>', 'reference image (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .option(
      '--option <name=value>',
      "one of the lane's own controls, e.g. aspectRatio=16:9 (repeatable; see `svc capabilities`)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '-o, --out <file|dir/>',
      'also write the image here (several: name-1.png, name-2.png, ...); a directory takes it under its history name',
    )
    .option('--mkdir', 'with -o: create missing directories')
    .option('--request-id <id>', 'your own request id (default: a new UUID)')
    .option('--timeout <seconds>', 'how long to wait for the result', '600');

export function registerGenerate(program: Command): void {
  withCommonOptions(
    program
      .command('generate')
      .alias('gen')
      .argument('<prompt>', 'what to draw')
      .option('-n, --count <n>', 'how many images (more than one runs a multimode batch)', '1')
      .description('Generate images from a prompt; live progress on a terminal'),
  ).action(async (prompt: string, options: CommonOptions & { count: string }, command: Command) => {
    const { client, out } = commandContext(command);
    const count = Number(options.count);
    if (!Number.isInteger(count) || count < 1)
      throw new CliError(`-n must be a whole number ≥ 1, got "${options.count}".`, EXIT_CODES.usage, 'USAGE');
    // The MCP lanes (zeta, eta) run on their own route: submitted, then followed on /api/events.
    const target = splitTarget(options.model, options.provider);
    if (isMcpTarget(target.provider)) {
      await runMcpCommand(
        command,
        mcpBody('image', prompt, target, { parameters: laneOptions(options.option), refs: options.ref, requestId: options.requestId }),
        { out: options.out, mkdir: options.mkdir, timeoutMs: timeoutMs(options.timeout) },
      );
      return;
    }
    const body = await requestBody(prompt, options);
    if (count === 1) {
      const result = await streamJob<GenerationResult>(client, out, '/api/generate', body, timeoutMs(options.timeout));
      const conversions: Conversion[] = [];
      const saved = await download(client, result?.images, options.out, { ...options, output: out, conversions });
      out.result(savedResult(result, saved, conversions), () =>
        result.images.map((image, index) => describeImage(out, image, saved[index])).join('\n'),
      );
      return;
    }
    await runMultimode(client, out, { ...body, n: count }, options);
  });

  withCommonOptions(
    program
      .command('edit')
      .argument('<image>', 'the image to edit: a local file')
      .argument('<prompt>', 'what to change')
      .option('--mask <file>', 'PNG mask: transparent pixels mark the area to edit')
      .description('Edit an image (image-to-image); lanes that cannot mask say so'),
  ).action(async (image: string, prompt: string, options: CommonOptions & { mask?: string }, command: Command) => {
    const { client, out } = commandContext(command);
    const body = await requestBody(prompt, options);
    body.image = await fileAsDataUrl(image);
    if (options.mask) body.mask = await fileAsDataUrl(options.mask);
    const result = await streamJob<GenerationResult>(client, out, '/api/edit', body, timeoutMs(options.timeout));
    const conversions: Conversion[] = [];
    const saved = await download(client, result?.images, options.out, { ...options, output: out, conversions });
    out.result(savedResult(result, saved, conversions), () =>
      result.images.map((item, index) => describeImage(out, item, saved[index])).join('\n'),
    );
  });

  withCommonOptions(
    program
      .command('multimode')
      .argument('<prompt>', 'what to draw')
      .option('-n, --count <n>', 'how many outputs on the chosen lane', '2')
      .option('--target <lane/model>', 'one output per target (repeatable); overrides -n', (value: string, previous: string[] = []) => [
        ...previous,
        value,
      ])
      .description('Several outputs from one prompt; partial success is reported per slot'),
  ).action(async (prompt: string, options: CommonOptions & { count: string; target?: string[] }, command: Command) => {
    const { client, out } = commandContext(command);
    const body = await requestBody(prompt, options);
    if (options.target?.length) {
      body.outputs = options.target.map((target) => splitTarget(target, undefined));
    } else {
      body.n = Number(options.count);
    }
    await runMultimode(client, out, body, options);
  });
}

async function runMultimode(client: StudioClient, out: Output, body: Record<string, unknown>, options: CommonOptions): Promise<void> {
  const result = await streamJob<MultimodeResult>(client, out, '/api/generate/multimode', body, timeoutMs(options.timeout));
  const slots = Array.isArray(result?.results) ? result.results : [];
  const images = slots.flatMap((slot) => (slot.ok && slot.image ? [slot.image] : []));
  const conversions: Conversion[] = [];
  const saved = await download(client, images, options.out, { ...options, output: out, conversions });
  out.result(savedResult(result, saved, conversions), () =>
    result.results
      .map((slot) => {
        if (slot.ok && slot.image) return `[${slot.slot}] ${describeImage(out, slot.image, saved[images.indexOf(slot.image)])}`;
        return `[${slot.slot}] ${out.color.red('✗')} ${slot.error?.code}: ${slot.error?.message}`;
      })
      .join('\n'),
  );
  const failed = slots.filter((slot) => !slot.ok);
  if (slots.length > 0 && failed.length === slots.length) {
    throw new CliError('Every output failed.', exitCodeFor(failed[0]?.error?.code), failed[0]?.error?.code);
  }
  if (failed.length) process.exitCode = EXIT_CODES.upstream;
}
