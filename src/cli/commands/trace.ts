import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { EXIT_CODES } from '../../common/errors.js';
import { writeFileAtomic } from '../../common/atomic-file.js';
import type { AssetRecord } from '../../studio/api/index.js';
import { CliError } from '../client.js';
import { commandContext } from '../context.js';

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
    .option('--param <name=value>', 'one tracer parameter, e.g. colorPrecision=4 (repeatable; see `svc capabilities --json`)', (value: string, previous: string[] = []) => [...previous, value])
    .option('-o, --out <file>', 'also write the SVG here')
    .option('--request-id <id>', 'the trace job\'s request id (follow it with `svc job`, cancel it with `svc inflight cancel`)')
    .description('Trace an image to a vector SVG, saved in history next to its source')
    .action(async (image: string, options: { preset?: string; param?: string[]; out?: string; requestId?: string }, command: Command) => {
      const { client, out } = commandContext(command);
      const pairs = parameters(options.param);
      let source = image;
      if (existsSync(image)) {
        // A local file goes through the API like any upload: the server's checks apply, not ours.
        const bytes = await readFile(image);
        const imported = await client.json<AssetRecord>('POST', '/api/assets', { body: { data: bytes.toString('base64'), name: basename(image) }, timeoutMs: 60_000 });
        source = imported.filename;
      }
      const query = new URLSearchParams({ kind: 'vector-svg', source, ...(options.preset ? { preset: options.preset } : {}), ...(options.requestId ? { requestId: options.requestId } : {}) });
      for (const [name, value] of pairs) query.append(name, value);
      const svg = await client.json<AssetRecord>('POST', `/api/assets/derived?${query}`, { timeoutMs: 120_000 });
      let saved: string | undefined;
      if (options.out) {
        const response = await client.fetch('GET', svg.url, { timeoutMs: 60_000 });
        writeFileAtomic(options.out, new Uint8Array(await response.arrayBuffer()));
        saved = options.out;
      }
      out.result({ ...svg, saved }, () => `${out.color.green('✓')} ${saved ?? svg.filename}  ${out.color.dim(`${svg.width}x${svg.height} svg · ${String(svg.settings.pathCount)} paths · ${String(svg.settings.preset)} from ${svg.derivedFrom}`)}`);
    });
}
