#!/usr/bin/env node
// Fake of CLI C (contracts/agent-cli-ndjson.md): `-p <prompt> --output-format
// stream-json`, init → message/tool_use/tool_result/error → result, every
// line with a timestamp. It has no reasoning events, so [fake:thinking] adds nothing.
// Behaviour tags: see fake-common.mjs.
import {
  answerFor,
  behaviours,
  crash,
  finish,
  hangCommand,
  readStdin,
  sleep,
  slowPieces,
  startHang,
  usage,
  uuid,
  writeLine,
  writeMalformed,
  writeSplitLine,
} from './fake-common.mjs';

const MODEL = 'fake-model-c';
const INPUT_ERROR = 42;

function parseArgs(argv) {
  const options = { prompt: undefined, format: 'text' };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    if (arg === '-p' || arg === '--prompt') options.prompt = argv[++index];
    else if (arg.startsWith('--prompt=')) options.prompt = arg.slice('--prompt='.length);
    else if (arg === '-o' || arg === '--output-format') options.format = argv[++index];
    else if (arg.startsWith('--output-format=')) options.format = arg.slice('--output-format='.length);
    else if (arg === '-m' || arg === '--model' || arg === '--approval-mode') index += 1;
    else if (arg === '-y' || arg === '--yolo') continue;
    else usage(`Unknown argument: ${arg}`, INPUT_ERROR);
  }
  return options;
}

const options = parseArgs(process.argv.slice(2));
const prompt = options.prompt ?? (await readStdin());
if (prompt.trim() === '') usage('No input provided via stdin or --prompt.', INPUT_ERROR);
const tags = behaviours(prompt);
const answer = answerFor(prompt, tags);

if (options.format !== 'stream-json') {
  process.stdout.write(`${answer}\n`);
  finish(0);
} else {
  await run();
}

async function run() {
  const started = Date.now();
  const line = (fields) => writeLine({ type: fields.type, timestamp: new Date().toISOString(), ...fields });
  const delta = (content) => ({ type: 'message', timestamp: new Date().toISOString(), role: 'assistant', content, delta: true });
  const stats = (toolCalls) => ({
    total_tokens: 20,
    input_tokens: 15,
    output_tokens: 5,
    cached: 0,
    input: 15,
    duration_ms: Date.now() - started,
    tool_calls: toolCalls,
  });

  await line({ type: 'init', session_id: uuid(), model: MODEL });
  await line({ type: 'message', role: 'user', content: prompt });
  if (tags.has('malformed')) await writeMalformed();
  let toolCalls = 0;
  if (tags.has('tool')) {
    const toolId = `run_shell_command-${Date.now()}`;
    await line({ type: 'tool_use', tool_name: 'run_shell_command', tool_id: toolId, parameters: { command: 'ls' } });
    await line({ type: 'tool_result', tool_id: toolId, status: 'success', output: 'a.txt\nb.txt\nc.txt' });
    toolCalls += 1;
  }
  if (tags.has('hang')) {
    await writeLine(delta('Working on it…'));
    const pid = startHang();
    await line({ type: 'tool_use', tool_name: 'run_shell_command', tool_id: `hang-${pid}`, parameters: { command: hangCommand(pid) } });
    return;
  }
  if (tags.has('crash')) {
    await writeLine(delta('Starting…'));
    await crash(JSON.stringify(delta('never finished')));
  }
  if (tags.has('error')) {
    await line({ type: 'error', severity: 'warning', message: 'Retrying after 429' });
    await line({ type: 'error', severity: 'error', message: '429 RESOURCE_EXHAUSTED' });
    await line({
      type: 'result',
      status: 'error',
      error: { type: 'api_error', message: 'Quota exceeded (429 RESOURCE_EXHAUSTED)' },
      stats: stats(toolCalls),
    });
    finish(1);
    return;
  }

  if (tags.has('slow')) {
    for (const piece of slowPieces(answer)) {
      await writeLine(delta(piece));
      await sleep(200);
    }
  } else if (tags.has('split')) {
    await writeSplitLine(delta(answer));
  } else {
    await writeLine(delta(answer));
  }
  await line({ type: 'result', status: 'success', stats: stats(toolCalls) });
  finish(0);
}
