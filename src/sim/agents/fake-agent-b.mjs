#!/usr/bin/env node
// Fake of CLI B (contracts/agent-cli-ndjson.md): `exec --json [options] <prompt>`,
// thread.started → turn.started → item.* → turn.completed | turn.failed.
// Behaviour tags: see fake-common.mjs. Resume: `exec resume <thread_id> …`
// (the contract's inferred form); with CODEX_HOME set it keeps its threads
// there and, like A, refuses to resume one it does not have.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

const threadsDir = process.env.CODEX_HOME ? join(process.env.CODEX_HOME, 'fake-threads') : undefined;
const threadFile = (id) => (threadsDir && /^[\w-]+$/.test(id) ? join(threadsDir, id) : undefined);

function parseArgs(argv) {
  if (argv[0] !== 'exec') usage("error: unrecognized subcommand; only 'exec' is simulated", 2);
  const options = { json: false, resume: undefined, positional: [] };
  let optionsEnded = false;
  let start = 1;
  if (argv[1] === 'resume') {
    if (!argv[2] || argv[2].startsWith('-')) usage('error: resume needs a thread id', 2);
    options.resume = argv[2];
    start = 3;
  }
  for (let index = start; index < argv.length; index += 1) {
    const arg = argv[index];
    if (optionsEnded || !arg.startsWith('-') || arg === '-') options.positional.push(arg);
    else if (arg === '--') optionsEnded = true;
    else if (arg === '--json' || arg === '--experimental-json') options.json = true;
    else if (arg === '--skip-git-repo-check' || arg === '--full-auto') continue;
    else if (['-m', '--model', '--color', '-C', '--cd', '-s', '--sandbox'].includes(arg)) index += 1;
    else usage(`error: unexpected argument '${arg}' found`, 2);
  }
  return options;
}

const options = parseArgs(process.argv.slice(2));
if (options.resume !== undefined && threadsDir && !existsSync(threadFile(options.resume) ?? ''))
  usage(`Error: no rollout found for thread id ${options.resume}`);
const given = options.positional.join(' ');
const prompt = given === '' || given === '-' ? await readStdin() : given;
const tags = behaviours(prompt);
const answer = answerFor(prompt, tags);

if (!options.json) {
  process.stdout.write(`[fake] exec\n${answer}\n`);
  finish(0);
} else {
  await run();
}

async function run() {
  let itemNumber = 0;
  const nextItemId = () => `item_${itemNumber++}`;
  const completedMessage = (id, text) => ({ type: 'item.completed', item: { id, type: 'agent_message', text } });

  const threadId = options.resume ?? uuid();
  if (threadsDir) {
    mkdirSync(threadsDir, { recursive: true });
    writeFileSync(threadFile(threadId), '');
  }
  await writeLine({ type: 'thread.started', thread_id: threadId });
  await writeLine({ type: 'turn.started' });
  if (tags.has('malformed')) await writeMalformed();
  if (tags.has('thinking')) {
    await writeLine({
      type: 'item.completed',
      item: { id: nextItemId(), type: 'reasoning', text: '**Planning** the answer before writing it.' },
    });
  }
  if (tags.has('tool')) {
    const id = nextItemId();
    const command = {
      id,
      type: 'command_execution',
      command: 'bash -lc ls',
      aggregated_output: '',
      exit_code: null,
      status: 'in_progress',
    };
    await writeLine({ type: 'item.started', item: command });
    await writeLine({
      type: 'item.completed',
      item: { ...command, aggregated_output: 'a.txt\nb.txt\nc.txt\n', exit_code: 0, status: 'completed' },
    });
  }
  if (tags.has('hang')) {
    await writeLine(completedMessage(nextItemId(), 'Working on it…'));
    const pid = startHang();
    await writeLine({
      type: 'item.started',
      item: {
        id: nextItemId(),
        type: 'command_execution',
        command: hangCommand(pid),
        aggregated_output: '',
        exit_code: null,
        status: 'in_progress',
      },
    });
    return;
  }
  if (tags.has('crash')) {
    await writeLine(completedMessage(nextItemId(), 'Starting…'));
    await crash(JSON.stringify(completedMessage(nextItemId(), 'never finished')));
  }
  if (tags.has('error')) {
    await writeLine({ type: 'item.completed', item: { id: nextItemId(), type: 'error', message: 'Reconnecting... 1/5' } });
    await writeLine({ type: 'turn.failed', error: { message: "You've hit your usage limit. Try again later." } });
    finish(1);
    return;
  }

  const id = nextItemId();
  if (tags.has('slow')) {
    let text = '';
    await writeLine({ type: 'item.started', item: { id, type: 'agent_message', text } });
    for (const piece of slowPieces(answer)) {
      await sleep(200);
      text += piece;
      await writeLine({ type: 'item.updated', item: { id, type: 'agent_message', text } });
    }
    await writeLine(completedMessage(id, text));
  } else if (tags.has('split')) {
    await writeSplitLine(completedMessage(id, answer));
  } else {
    await writeLine(completedMessage(id, answer));
  }
  await writeLine({
    type: 'turn.completed',
    usage: { input_tokens: 900, cached_input_tokens: 0, output_tokens: 5, reasoning_output_tokens: 0 },
  });
  finish(0);
}
