import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { EXIT_CODES } from '../../common/errors.js';
import { exitCodeFor } from '../../studio/errors.js';
import { connectEvents, HttpStatusError, type EventConnection } from '../../common/events/client.js';
import type { ChannelEvent } from '../../common/events/types.js';
import type { McpResult } from '../../studio/api/index.js';
import { isMcpLane } from '../../studio/api/mcp.js';
import { CliError, type StudioClient } from '../client.js';
import { commandContext } from '../context.js';
import type { Output } from '../output.js';
import { prepareOut, singlePath, writeOut } from '../out-target.js';

// `svc generate|video --model zeta/<model>` (the MCP lanes): the job is
// submitted to POST /api/mcp/generate (always asynchronous) and followed on
// /api/events, subscribed before the submit so no event is missed, until its
// `done` (the file is in history) or `error`. Progress shows on a terminal;
// `-o` writes the file. A client timeout leaves the job running.

export const isMcpTarget = (provider: string | undefined): boolean => isMcpLane(provider);

export interface McpJobBody {
  readonly provider: string;
  readonly kind: 'image' | 'video';
  readonly prompt: string;
  readonly model?: string;
  readonly ratio?: string;
  readonly parameters?: Record<string, unknown>;
  readonly references?: readonly { filename: string }[];
  readonly requestId?: string;
}

const describeEvent = (event: ChannelEvent): string | undefined => {
  if (event.event === 'submitted') return `submitted ${String(event.provider)}/${String(event.model)}`;
  if (event.event === 'progress' && typeof event.phase === 'string')
    return event.phase === 'uploading' ? `uploading ${String(event.current)}/${String(event.total)}` : event.phase;
  return undefined;
};

/**
 * Subscribes to the channel and resolves once it is open. A first connection that fails (no studio
 * there) rejects at once, as any other command would; once open, drops reconnect by themselves.
 */
function subscribe(
  client: StudioClient,
  onEvent: (event: ChannelEvent) => void,
  onRefused: (error: Error) => void,
): Promise<EventConnection> {
  const headers: Record<string, string> = client.token ? { authorization: `Bearer ${client.token}` } : {};
  return new Promise((resolve, reject) => {
    let opened = false;
    const connection: EventConnection = connectEvents(`${client.server.url}/api/events`, {
      headers,
      onEvent,
      onStatus: (status) => {
        if (status !== 'open') return;
        opened = true;
        resolve(connection);
      },
      // A refusal ends the stream for good (503: the channel is full for now, it reconnects).
      onError: (error) => {
        if (error instanceof HttpStatusError) {
          if (error.status !== 503) onRefused(error);
          return;
        }
        if (opened) return;
        connection.close();
        reject(client.transportError(error));
      },
    });
    void connection.closed.then(() => resolve(connection));
  });
}

export async function runMcpJob(
  client: StudioClient,
  out: Output,
  body: McpJobBody,
  options: { out?: string; mkdir?: boolean; timeoutMs: number },
): Promise<void> {
  // -o is checked before anything is billed: a directory takes the file under its history name.
  const target = prepareOut(options.out, { mkdir: options.mkdir });
  const requestId = body.requestId ?? randomUUID();
  const live = process.stderr.isTTY && !out.json;
  const recovery = `The studio keeps working on it: find it later with \`svc history ls --json\` (requestId ${requestId}).`;
  let settle!: (event: ChannelEvent) => void;
  let fail!: (error: Error) => void;
  const terminal = new Promise<ChannelEvent>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  // Awaited only once the job is accepted: a refusal of the stream before that must not go unhandled.
  terminal.catch(() => {});
  const connection = await subscribe(
    client,
    (event) => {
      if (event.requestId !== requestId || event.topic !== 'generation') return;
      if ((event.event === 'done' || event.event === 'error') && event.slot === undefined) return settle(event);
      const line = describeEvent(event);
      if (line && live) process.stderr.write(`\r\u001b[2K${out.color.dim(requestId.slice(0, 8))} ${line}`);
    },
    (error) =>
      fail(new CliError(`The event stream failed: ${error.message}. ${recovery}`, EXIT_CODES.unreachable, 'STREAM_BROKEN', { requestId })),
  );
  const timer = setTimeout(
    () => fail(new CliError(`Timed out waiting for ${requestId}. ${recovery}`, EXIT_CODES.timeout, 'CLIENT_TIMEOUT', { requestId })),
    options.timeoutMs,
  );
  try {
    await client.json('POST', '/api/mcp/generate', { body: { ...body, requestId }, timeoutMs: 60_000 });
    const event = await terminal;
    if (live) process.stderr.write('\r\u001b[2K');
    if (event.event === 'error') {
      const error = (event.error ?? { code: 'INTERNAL_ERROR', message: 'The job failed.' }) as {
        code: string;
        message: string;
        details?: Record<string, unknown>;
      };
      throw new CliError(error.message, exitCodeFor(error.code), error.code, error.details);
    }
    const result = event.result as McpResult;
    let saved: string | undefined;
    if (target) {
      const response = await client.fetch('GET', result.asset.url, { timeoutMs: 120_000 });
      saved = singlePath(target, result.asset.filename);
      writeOut(saved, new Uint8Array(await response.arrayBuffer()), result.asset.filename);
    }
    const { asset } = result;
    out.result(
      { ...result, ...(saved ? { saved } : {}) },
      () =>
        `${out.color.green('✓')} ${saved ?? asset.filename}  ${out.color.dim(`${asset.width}x${asset.height} ${asset.format}${asset.video ? ` ${asset.video.durationSeconds} s` : ''} · ${asset.provider}/${asset.model}`)}`,
    );
  } finally {
    clearTimeout(timer);
    connection.close();
  }
}

/** What the generate and video commands pass on: `--option name=value` become parameters (`ratio` is the ratio), `--ref` names gallery files. */
export function mcpBody(
  kind: 'image' | 'video',
  prompt: string,
  target: { provider?: string; model?: string },
  flags: { parameters?: Record<string, unknown>; ratio?: string; refs?: readonly string[]; requestId?: string },
): McpJobBody {
  const { ratio: optionRatio, ...parameters } = flags.parameters ?? {};
  const ratio = flags.ratio ?? (typeof optionRatio === 'string' ? optionRatio : undefined);
  return {
    provider: target.provider as string,
    kind,
    prompt,
    ...(target.model ? { model: target.model } : {}),
    ...(ratio ? { ratio } : {}),
    ...(Object.keys(parameters).length ? { parameters } : {}),
    ...(flags.refs?.length ? { references: flags.refs.map((filename) => ({ filename })) } : {}),
    ...(flags.requestId ? { requestId: flags.requestId } : {}),
  };
}

/** Runs an MCP job from a command (its client and output). */
export async function runMcpCommand(
  command: Command,
  body: McpJobBody,
  options: { out?: string; mkdir?: boolean; timeoutMs: number },
): Promise<void> {
  const { client, out } = commandContext(command);
  await runMcpJob(client, out, body, options);
}
