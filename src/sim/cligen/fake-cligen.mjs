#!/usr/bin/env node
// Fake of the local generation CLI behind the `cligen` lane
// (contracts/cligen-local-cli-artifact.md §6): accepts only `-p -`, reads the
// whole instruction on stdin, finds its `  Prompt:`, `  ImageName:` and
// `  ImagePaths:` lines, reads every reference, writes a real 1024x1024 JPEG
// under {BRAIN} = $HOME/.gemini/antigravity-cli/brain/<uuid>/ and prints
// `RESULT|<path>|jpg`. No network. Every run is logged (one JSON line) in
// $HOME/.gemini/fake-cligen-runs.jsonl, so tests can see what the lane passed.
//
// Markers in the prompt script the failures:
//   [fake:error]          ERROR|<message>, exit 1
//   [fake:quota]          ERROR|Resource exhausted: … quota will reset …, exit 1
//   [fake:raw-quota]      a quota message without the ERROR| prefix, exit 1
//   [fake:crash]          some output, then killed by SIGABRT
//   [fake:hang]           never ends; ignores SIGTERM; a grandchild in its group does too
//   [fake:silent]         writes the artifact, prints nothing (the lane's fallback scan finds it)
//   [fake:stderr-result]  the RESULT line on stderr
//   [fake:saved-path]     SAVED_PATH=<path> instead of RESULT
//   [fake:malformed]      a bare `RESULT|`
//   [fake:missing]        RESULT pointing at a file that does not exist
//   [fake:outside]        the artifact outside the CLI's folders ($HOME/Pictures)
//   [fake:symlink]        RESULT pointing at a symlink to the artifact
//   [fake:nonzero]        a diagnostic on stderr, nothing on stdout, exit 7
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

// The environment as the CLI was given it (sharp, loaded later, adds a variable of its own).
const givenEnv = Object.keys(process.env).sort();

const MARKER = /\[fake:([a-z-]+)\]/g;
const home = process.env.HOME || homedir();
const cliHome = join(home, '.gemini');
const brain = join(cliHome, 'antigravity-cli', 'brain');

function usage(message) {
  process.stderr.write(`${message}\nusage: agy -p -\n`);
  process.exit(2);
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The JSON value of an instruction line `  <name>: <json>`. */
function field(text, name) {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`  ${name}: `));
  if (line === undefined) usage(`fake: the instruction has no "  ${name}:" line`);
  try {
    return JSON.parse(line.slice(name.length + 4));
  } catch {
    return usage(`fake: the "  ${name}:" line is not JSON`);
  }
}

/** A byte sum of the prompt: the same prompt gives the same picture. */
const hueOf = (text, salt) => [...`${salt}${text}`].reduce((sum, char) => (sum * 31 + char.charCodeAt(0)) % 360, 7);

/** A real 1024x1024 JPEG: a gradient from the prompt, a disc, the first reference inset, a SIM band. */
async function drawJpeg(prompt, references) {
  const { default: sharp } = await import('sharp');
  const [a, b] = [hueOf(prompt, 'a'), hueOf(prompt, 'b')];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="1024">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${a},70%,55%)"/><stop offset="1" stop-color="hsl(${b},60%,30%)"/></linearGradient>
    <pattern id="h" width="32" height="32" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="16" height="32" fill="#111"/><rect x="16" width="16" height="32" fill="#fc0"/></pattern></defs>
    <rect width="1024" height="1024" fill="url(#g)"/>
    <circle cx="${300 + (a % 400)}" cy="${300 + (b % 400)}" r="180" fill="hsl(${(a + 180) % 360},80%,65%)" opacity="0.85"/>
    <rect width="220" height="40" fill="url(#h)"/>
  </svg>`;
  const layers = [];
  if (references[0]) layers.push({ input: await sharp(references[0]).resize(256, 256, { fit: 'cover' }).toBuffer(), left: 744, top: 744 });
  return sharp(Buffer.from(svg)).composite(layers).jpeg({ quality: 85 }).toBuffer();
}

function log(entry) {
  mkdirSync(cliHome, { recursive: true });
  appendFileSync(join(cliHome, 'fake-cligen-runs.jsonl'), `${JSON.stringify(entry)}\n`);
}

/** [fake:hang]: deaf to SIGTERM, with a grandchild in the same process group that is deaf too. */
function hang() {
  process.on('SIGTERM', () => {});
  const grandchild = spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000);'], { stdio: 'ignore' });
  setInterval(() => {}, 1000);
  return grandchild.pid;
}

const args = process.argv.slice(2);
if (args.length !== 2 || args[0] !== '-p' || args[1] !== '-') usage(`fake: unexpected arguments ${JSON.stringify(args)}`);
const instruction = await readStdin();
const prompt = field(instruction, 'Prompt');
const imageName = field(instruction, 'ImageName');
const imagePaths = field(instruction, 'ImagePaths');
if (typeof prompt !== 'string' || typeof imageName !== 'string' || !Array.isArray(imagePaths))
  usage('fake: Prompt, ImageName or ImagePaths has the wrong type');
const markers = new Set([...prompt.matchAll(MARKER)].map((match) => match[1]));
const references = imagePaths.map((path) => readFileSync(path));

const run = {
  pid: process.pid,
  argv: args,
  cwd: process.cwd(),
  env: givenEnv,
  pathHead: (process.env.PATH ?? '').split(':')[0],
  prompt,
  imageName,
  imagePaths,
  references: references.map((bytes, index) => ({ path: imagePaths[index], bytes: bytes.length })),
  markers: [...markers],
  instructionLines: instruction.split('\n').length,
};

if (markers.has('hang')) {
  log({ ...run, grandchild: hang() });
} else {
  log(run);
  const say = (line) => process.stdout.write(`${line}\n`);
  const artifactDir = join(markers.has('outside') ? join(home, 'Pictures') : join(brain, randomUUID()));
  const artifact = join(artifactDir, `${imageName}.jpg`);
  const writeArtifact = async () => {
    mkdirSync(artifactDir, { recursive: true });
    writeFileSync(artifact, await drawJpeg(prompt, references));
  };
  say('I will call the image tool once.');
  if (markers.has('error')) {
    say('ERROR|The image tool failed: the simulated model could not draw this.');
    process.exitCode = 1;
  } else if (markers.has('quota')) {
    say('ERROR|Resource exhausted: You have exhausted your capacity on this model. Your quota will reset after 2h.');
    process.exitCode = 1;
  } else if (markers.has('raw-quota')) {
    say('Error: 429 resource exhausted: too many requests for this project.');
    process.exitCode = 1;
  } else if (markers.has('crash')) {
    process.stdout.write('Generating', () => process.kill(process.pid, 'SIGABRT'));
  } else if (markers.has('nonzero')) {
    process.stderr.write('fatal: the simulated CLI could not load its configuration\n');
    process.exitCode = 7;
  } else if (markers.has('malformed')) {
    await writeArtifact();
    say('RESULT|');
  } else if (markers.has('missing')) {
    say(`RESULT|${join(brain, randomUUID(), `${imageName}.jpg`)}|jpg`);
  } else {
    await writeArtifact();
    let shown = artifact;
    if (markers.has('symlink')) {
      shown = join(artifactDir, `${imageName}-link.jpg`);
      symlinkSync(artifact, shown);
    }
    if (markers.has('silent')) {
      // Nothing printed: the artifact alone says what happened.
    } else if (markers.has('stderr-result')) {
      process.stderr.write(`RESULT|${shown}|jpg\n`);
    } else if (markers.has('saved-path')) {
      say(`SAVED_PATH=${shown}`);
    } else {
      say(`Saved the image (${statSync(artifact).size} bytes).`);
      say(`RESULT|${shown}|jpg`);
    }
  }
}
