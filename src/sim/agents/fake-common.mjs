// Shared parts of the fake agent programs (stand-ins for the three agent
// command-line programs of contracts/agent-cli-ndjson.md). Behaviour is chosen
// by tags in the prompt:
//   [fake:tool]      a tool call (and its result) before the answer
//   [fake:thinking]  reasoning before the answer (programs that have it)
//   [fake:error]     the program reports a failure (limit reached) and exits 1
//   [fake:crash]     output, then a half-written line, then exit 1 mid-stream
//   [fake:hang]      some output, then never exits (ignores SIGTERM; starts a
//                    grandchild whose pid is in the tool call's command)
//   [fake:malformed] banner, truncated, non-object, unknown-type, blank and
//                    oversized (1.1 MiB) lines around the answer
//   [fake:slow]      four progress pieces, then the answer, 200 ms apart
//   [fake:split]     an answer with multi-byte characters, one written in two
//                    writes split inside its UTF-8 bytes
//   [fake:env]       answers with its working directory and variable names
//   [fake:detached]  (A) before answering, starts a holder in its own process
//                    group (as setsid would) that keeps stdout open after the
//                    program exits; its pid is in a tool call's command; it
//                    ends by itself after a minute
//   [fake:flood]     (A) an answer of FLOOD_BYTES, in 64 KiB text blocks
//   [fake:goaldone]  the answer ends with a goal done marker carrying evidence
//   [fake:goalnoevidence] the answer ends with a goal done marker without evidence
//   [fake:goalpause] the answer ends with a goal pause marker and its reason
// Without tags: the answer echoes the prompt.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';

export const TAG = /\[fake:([a-z]+)\]/g;

export function behaviours(prompt) {
  return new Set([...prompt.matchAll(TAG)].map((match) => match[1]));
}

export const stripTags = (prompt) => prompt.replace(TAG, '').trim();

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const uuid = () => randomUUID();

/** Writes raw text to stdout and resolves once it was handed to the OS. */
export function writeRaw(text) {
  return new Promise((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())));
}

export const writeLine = (object) => writeRaw(`${JSON.stringify(object)}\n`);

/** The text answer for a prompt, by behaviour. */
export function answerFor(prompt, tags) {
  if (tags.has('env')) {
    const names = Object.keys(process.env).sort().join(',');
    return `cwd=${process.cwd()}\nenv=${names}`;
  }
  if (tags.has('split')) return `Split: naïve café — 日本語 😀 ${stripTags(prompt)}`;
  if (tags.has('tool')) return 'I listed the directory: 3 files.';
  // Goal markers start a line, as the chat server's goal logic expects.
  if (tags.has('goaldone')) return 'Worked on the goal.\n[goal:done] evidence: all checks pass (fake run)';
  if (tags.has('goalnoevidence')) return 'Worked on the goal.\n[goal:done]';
  if (tags.has('goalpause')) return 'Worked on the goal.\n[goal:pause] waiting for a person to review (fake run)';
  return `Echo: ${stripTags(prompt)}`;
}

/** [fake:slow]: four progress pieces, then the answer (written 200 ms apart). */
export function slowPieces(text) {
  return [1, 2, 3, 4].map((step) => `Step ${step} of 4. `).concat(text);
}

/** [fake:flood]: the answer's size; more than a loopback socket's kernel buffers hold. */
export const FLOOD_BYTES = 8 * 1024 * 1024;
const FLOOD_PIECE_BYTES = 64 * 1024;

/** [fake:flood]: numbered 64 KiB pieces of ASCII adding up to FLOOD_BYTES. */
export function floodPieces() {
  const pieces = [];
  for (let offset = 0; offset < FLOOD_BYTES; offset += FLOOD_PIECE_BYTES) {
    const label = `${offset / FLOOD_PIECE_BYTES}:`;
    pieces.push(label + 'x'.repeat(FLOOD_PIECE_BYTES - label.length));
  }
  return pieces;
}

/** [fake:detached]: a process in its own group holding our stdout; it ends by itself after a minute. */
export function startDetachedHolder() {
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000);'], {
    detached: true,
    stdio: ['ignore', 'inherit', 'ignore'],
  });
  holder.unref();
  return holder.pid;
}

/** The command a hanging tool call shows; tests read the grandchild's pid from it. */
export const hangCommand = (pid) => `sleep infinity # pid ${pid}`;

/** Writes one JSON line in two writes, split inside the first 4-byte UTF-8 character. */
export async function writeSplitLine(object) {
  const bytes = Buffer.from(`${JSON.stringify(object)}\n`);
  const emoji = bytes.indexOf(Buffer.from('😀'));
  const cut = emoji === -1 ? Math.floor(bytes.length / 2) : emoji + 2;
  await writeRaw(bytes.subarray(0, cut));
  await sleep(50);
  await writeRaw(bytes.subarray(cut));
}

/** Lines a confused program might print: the reader must skip every one of them. */
export async function writeMalformed() {
  await writeRaw('Fake agent 0.0.0 starting (this banner is not JSON)\n');
  await writeRaw('{"type":"assistant","message":{"id":"msg_trunc"\n');
  await writeRaw('[1,2,3]\n');
  await writeRaw('\n');
  await writeRaw(`${JSON.stringify({ type: 'mystery_event', payload: { note: 'unknown types are ignored' } })}\r\n`);
  await writeRaw(`${JSON.stringify({ type: 'oversized', text: 'x'.repeat(1_100_000) })}\n`);
}

/** [fake:hang]: a grandchild in the same process group, SIGTERM ignored, never exits. */
export function startHang() {
  process.on('SIGTERM', () => {});
  const grandchild = spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000);'], { stdio: 'ignore' });
  setInterval(() => {}, 1000);
  return grandchild.pid;
}

/** [fake:crash]: a half-written line, a message on stderr, exit 1. */
export async function crash(partial) {
  await writeRaw(partial.slice(0, Math.floor(partial.length / 2)));
  process.stderr.write('fatal: simulated crash\n');
  process.exit(1);
}

/** Exits after everything written is flushed. */
export function finish(code) {
  process.exitCode = code;
}

/** Reads all of stdin (prompt given as "-" or not at all). */
export async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Usage error like a real CLI: message on stderr, exit code. */
export function usage(message, code = 1) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}
