#!/usr/bin/env node
// Fake of CLI A (contracts/agent-cli-ndjson.md): `-p … --output-format
// stream-json --verbose`, an envelope stream system/init → assistant/user lines
// (one line per content block, repeating the message id) → one result line.
// Behaviour tags: see fake-common.mjs. With CLAUDE_CONFIG_DIR set it keeps
// its conversations there (empty files under fake-conversations/) and, like
// the real program, refuses to resume one it does not have.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  answerFor,
  behaviours,
  crash,
  floodPieces,
  hangCommand,
  finish,
  readStdin,
  sleep,
  slowPieces,
  startDetachedHolder,
  startHang,
  uuid,
  usage,
  writeLine,
  writeMalformed,
  writeSplitLine,
} from './fake-common.mjs';

const MODEL = 'fake-model-a';
const conversationsDir = process.env.CLAUDE_CONFIG_DIR ? join(process.env.CLAUDE_CONFIG_DIR, 'fake-conversations') : undefined;
const conversationFile = (id) => (conversationsDir && /^[\w-]+$/.test(id) ? join(conversationsDir, id) : undefined);

function parseArgs(argv) {
  const options = { print: false, verbose: false, format: 'text', resume: undefined, positional: [] };
  let optionsEnded = false;
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    if (optionsEnded || !arg.startsWith('-') || arg === '-') options.positional.push(arg);
    else if (arg === '--') optionsEnded = true;
    else if (arg === '-p' || arg === '--print') options.print = true;
    else if (arg === '--verbose') options.verbose = true;
    else if (arg === '--output-format') options.format = argv[++index];
    else if (arg.startsWith('--output-format=')) options.format = arg.slice('--output-format='.length);
    else if (arg === '--resume' || arg === '-r') options.resume = argv[++index];
    else if (['--model', '--permission-mode', '--max-turns', '--input-format'].includes(arg)) index += 1;
    else if (arg === '--include-partial-messages') continue;
    else usage(`error: unknown option '${arg}'`);
  }
  return options;
}

const options = parseArgs(process.argv.slice(2));
if (!options.print) usage('fake: only print mode (-p) is simulated');
if (options.resume !== undefined && conversationsDir && !existsSync(conversationFile(options.resume) ?? '')) {
  usage(`No conversation found with session ID: ${options.resume}`);
}
if (options.format === 'stream-json' && !options.verbose)
  usage('Error: When using --print, --output-format=stream-json requires --verbose');
const prompt = options.positional.length > 0 ? options.positional.join(' ') : await readStdin();
const tags = behaviours(prompt);
const answer = answerFor(prompt, tags);

if (options.format !== 'stream-json') {
  process.stdout.write(`${answer}\n`);
  finish(0);
} else {
  await run();
}

async function run() {
  const sessionId = options.resume ?? uuid();
  const started = Date.now();
  let messageNumber = 0;
  const nextMessageId = () => `msg_${String((messageNumber += 1)).padStart(2, '0')}${uuid().slice(0, 8)}`;
  const assistant = (messageId, block) => ({
    type: 'assistant',
    message: {
      id: messageId,
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [block],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 2 },
    },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: uuid(),
  });

  if (conversationsDir) {
    mkdirSync(conversationsDir, { recursive: true });
    writeFileSync(conversationFile(sessionId), '');
  }
  await writeLine({
    type: 'system',
    subtype: 'init',
    session_id: sessionId,
    uuid: uuid(),
    cwd: process.cwd(),
    model: MODEL,
    tools: ['Bash', 'Read'],
    mcp_servers: [],
    permissionMode: 'default',
    apiKeySource: 'none',
    slash_commands: [],
    output_style: 'default',
  });
  if (tags.has('malformed')) await writeMalformed();

  let messageId = nextMessageId();
  if (tags.has('thinking')) {
    await writeLine(
      assistant(messageId, {
        type: 'thinking',
        thinking: 'The user wants an answer; think briefly first.',
        signature: 'ZmFrZS1zaWduYXR1cmU=',
      }),
    );
  }
  if (tags.has('tool')) {
    const toolId = `toolu_${uuid().replace(/-/g, '').slice(0, 20)}`;
    await writeLine(
      assistant(messageId, { type: 'tool_use', id: toolId, name: 'Bash', input: { command: 'ls', description: 'List files' } }),
    );
    await writeLine({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolId, content: 'a.txt\nb.txt\nc.txt', is_error: false }] },
      parent_tool_use_id: null,
      session_id: sessionId,
      uuid: uuid(),
    });
    messageId = nextMessageId();
  }
  if (tags.has('hang')) {
    await writeLine(assistant(messageId, { type: 'text', text: 'Working on it…' }));
    const pid = startHang();
    await writeLine(
      assistant(messageId, { type: 'tool_use', id: `toolu_hang${uuid().slice(0, 8)}`, name: 'Bash', input: { command: hangCommand(pid) } }),
    );
    return;
  }
  if (tags.has('crash')) {
    await writeLine(assistant(messageId, { type: 'text', text: 'Starting…' }));
    await crash(JSON.stringify(assistant(messageId, { type: 'text', text: 'never finished' })));
  }
  if (tags.has('error')) {
    await writeLine({
      type: 'system',
      subtype: 'api_retry',
      attempt: 1,
      max_retries: 1,
      retry_delay_ms: 10,
      error_status: 429,
      error: 'rate_limit',
      session_id: sessionId,
      uuid: uuid(),
    });
    const limit = "You've hit your session limit · resets 3:45pm";
    await writeLine(assistant(messageId, { type: 'text', text: limit }));
    await writeLine({
      type: 'result',
      subtype: 'success',
      is_error: true,
      duration_ms: Date.now() - started,
      duration_api_ms: 0,
      num_turns: 1,
      result: limit,
      session_id: sessionId,
      total_cost_usd: 0,
      usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      permission_denials: [],
      api_error_status: 429,
      uuid: uuid(),
    });
    finish(1);
    return;
  }

  if (tags.has('detached')) {
    const pid = startDetachedHolder();
    await writeLine(
      assistant(messageId, { type: 'tool_use', id: `toolu_bg${uuid().slice(0, 8)}`, name: 'Bash', input: { command: hangCommand(pid) } }),
    );
    messageId = nextMessageId();
  }
  if (tags.has('flood')) {
    // One message per piece: blocks repeating within a message would be taken as repeats.
    for (const piece of floodPieces()) await writeLine(assistant(nextMessageId(), { type: 'text', text: piece }));
  } else if (tags.has('slow')) {
    for (const piece of slowPieces(answer)) {
      await writeLine(assistant(messageId, { type: 'text', text: piece }));
      await sleep(200);
    }
  } else if (tags.has('split')) {
    await writeSplitLine(assistant(messageId, { type: 'text', text: answer }));
  } else {
    await writeLine(assistant(messageId, { type: 'text', text: answer }));
  }
  await writeLine({
    type: 'result',
    subtype: 'success',
    is_error: false,
    duration_ms: Date.now() - started,
    duration_api_ms: Date.now() - started,
    num_turns: 1,
    result: answer,
    session_id: sessionId,
    total_cost_usd: 0.0004,
    usage: { input_tokens: 12, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    permission_denials: [],
    uuid: uuid(),
  });
  finish(0);
}
