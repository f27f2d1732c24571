import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { EXIT_CODES } from '../../common/errors.js';
import { exitCodeFor, ServiceError } from '../../studio/errors.js';
import type { AssetRecord } from '../../studio/api/index.js';
import { TRACE_PARAMETER_NAMES, traceParameters } from '../../studio/vector/parameters.js';
import { CliError } from '../client.js';
import { commandContext } from '../context.js';
import { prepareOut, singlePath, writeOut } from '../out-target.js';
import { plural } from '../../common/issue-message.js';

/**
 * The studio's own checks of a preset and parameters, run before a local file is uploaded: a
 * request the studio would refuse uploads nothing. (A history name goes straight to the studio.)
 */
function checkBeforeUpload(preset: string | undefined, pairs: readonly [string, string][]): void {
  const unknown = pairs.find(([name]) => !(TRACE_PARAMETER_NAMES as readonly string[]).includes(name));
  if (unknown) {
    throw new CliError(
      `Unknown tracer parameter "${unknown[0]}" (valid: ${TRACE_PARAMETER_NAMES.join(', ')}).`,
      exitCodeFor('TRACE_PARAMETER_INVALID'),
      'TRACE_PARAMETER_INVALID',
      { field: unknown[0], valid: TRACE_PARAMETER_NAMES },
    );
  }
  try {
    traceParameters(preset, Object.fromEntries(pairs));
  } catch (error) {
    if (error instanceof ServiceError) throw new CliError(error.message, exitCodeFor(error.code), error.code, error.details);
    throw error;
  }
}

/** `--param k=v` pairs, kept as text: the studio checks each against its range. */
function parameters(pairs: readonly string[] | undefined): [string, string][] {
  return (pairs ?? []).map((pair) => {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new CliError(`--param takes name=value, got "${pair}".`, EXIT_CODES.usage, 'USAGE');
    return [pair.slice(0, equals), pair.slice(equals + 1)];
  });
}

export function registerTrace(program: Command): void {
  program
    .command('trace')
    .argument('<image>', 'a history file name, or a local PNG/JPEG/WebP file (uploaded to history first, so the studio checks it)')
    .option('--preset <name>', 'general (default), poster, photo, line-art')
    .option(
      '--param <name=value>',
      'one tracer parameter, e.g. colorPrecision=4 (repeatable; see `svc capabilities --json`)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('-o, --out <file|dir/>', 'also write the SVG here (a directory: under its history name)')
    .option('--mkdir', 'with -o: create missing directories')
    .option('--request-id <id>', "the trace job's request id (follow it with `svc job`, cancel it with `svc inflight cancel`)")
    .description('Trace an image to a vector SVG, saved in history next to its source')
    .action(
      async (
        image: string,
        options: { preset?: string; param?: string[]; out?: string; mkdir?: boolean; requestId?: string },
        command: Command,
      ) => {
        const { client, out } = commandContext(command);
        const pairs = parameters(options.param);
        const target = prepareOut(options.out, options);
        let source = image;
        if (existsSync(image)) {
          checkBeforeUpload(options.preset, pairs);
          // A local file goes through the API like any upload: the server's checks apply, not ours.
          const bytes = await readFile(image);
          const imported = await client.json<AssetRecord>('POST', '/api/assets', {
            body: { data: bytes.toString('base64'), name: basename(image) },
            timeoutMs: 60_000,
          });
          source = imported.filename;
        }
        const query = new URLSearchParams({
          kind: 'vector-svg',
          source,
          ...(options.preset ? { preset: options.preset } : {}),
          ...(options.requestId ? { requestId: options.requestId } : {}),
        });
        for (const [name, value] of pairs) query.append(name, value);
        const svg = await client.json<AssetRecord>('POST', `/api/assets/derived?${query}`, { timeoutMs: 120_000 });
        let saved: string | undefined;
        if (target) {
          const response = await client.fetch('GET', svg.url, { timeoutMs: 60_000 });
          saved = singlePath(target, svg.filename);
          writeOut(saved, new Uint8Array(await response.arrayBuffer()), svg.filename);
        }
        out.result(
          { ...svg, saved },
          () =>
            `${out.color.green('✓')} ${saved ?? svg.filename}  ${out.color.dim(`${svg.width}x${svg.height} svg · ${plural(Number(svg.settings.pathCount), 'path')} · ${String(svg.settings.preset)} from ${svg.derivedFrom}`)}`,
        );
      },
    );
}
