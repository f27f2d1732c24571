import { randomBytes } from 'node:crypto';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { ServiceError } from '../../errors.js';
import { runProcess, type RunProcessResult } from '../../../common/process/index.js';
import { maskSecrets } from '../../../common/secrets.js';
import type { LaneEnv } from '../env.js';
import { laneTimeoutMs } from '../budget.js';
import { locateProgram, programMissing, type ProgramCredential } from '../program.js';
import type { LaneImageRequest, LaneImageResult, LaneJob, LaneModule } from '../types.js';
import { findArtifact, takeArtifact, type CliPlaces } from './artifact.js';
import { instructionText } from './instruction.js';
import { parseCliOutput } from './output.js';
import { writeReferenceFiles } from './references.js';

// One cligen image: the CLI run once in print mode (`-p -`, the instruction on
// stdin), in its own process group with a minimal environment, under the
// lane's budget (360 s, SVC_CLIGEN_TIMEOUT_MS); a timeout or a cancel kills
// the whole tree (SIGTERM, SIGKILL 1 s later). Then its output says where the
// image is, and the file is taken from the CLI's folder with care.

/** The CLI's folders under the home it runs with (contract: {CLI_HOME} and {BRAIN}). */
export const CLI_HOME_DIR = '.gemini';
export const CLI_BRAIN_DIR = join(CLI_HOME_DIR, 'antigravity-cli', 'brain');
/** The one credential variable the CLI is passed, when the studio has it. */
export const CLI_CREDENTIAL_ENV = 'GEMINI_API_KEY';
/** The artifact's file stem; each run adds its own suffix, so two runs never take each other's file. */
export const ARTIFACT_STEM = 'svc_generated';
/** After SIGTERM, the CLI's tree gets this long before SIGKILL. */
const KILL_GRACE_MS = 1000;
/** Output kept of each stream. */
const OUTPUT_MAX_BYTES = 1024 * 1024;

const failed = (reason: string, message: string, details: Record<string, unknown> = {}) =>
  new ServiceError('CLIGEN_GENERATION_FAILED', message, { details: { lane: 'cligen', reason, ...details } });

/** The program to run, or CLIGEN_GENERATION_FAILED saying how to install it. */
export function cligenProgram(ctx: LaneEnv, credential: ProgramCredential): { path: string; offPath: boolean } {
  const found = locateProgram(credential, ctx.env);
  if (!found.path)
    throw failed('binary_not_found', programMissing(credential, found), { program: credential.program, env: credential.overrideEnv });
  return { path: found.path, offPath: found.offPath };
}

/** The home the CLI runs with, its temp dir, and the folders its artifact may be in. */
function placesOf(ctx: LaneEnv, credential: ProgramCredential): { home: string; tmp: string; places: CliPlaces } {
  const home = (credential.homeEnv && ctx.env[credential.homeEnv]) || ctx.env.HOME || homedir();
  const tmp = ctx.env.TMPDIR || tmpdir();
  const cliHome = join(home, CLI_HOME_DIR);
  return { home, tmp, places: { cliHome, brain: join(home, CLI_BRAIN_DIR), roots: [cliHome, join(home, '.cache'), tmp] } };
}

/** Only what the CLI needs (contract §2): nothing else of the studio's environment is inherited. */
function childEnvironment(ctx: LaneEnv, program: { path: string; offPath: boolean }, home: string, tmp: string): Record<string, string> {
  const path = ctx.env.PATH ?? '';
  const env: Record<string, string | undefined> = {
    PATH: program.offPath ? [dirname(program.path), path].filter(Boolean).join(delimiter) : path,
    HOME: home,
    USERPROFILE: home,
    TMPDIR: tmp,
    TEMP: tmp,
    LANG: ctx.env.LANG,
    [CLI_CREDENTIAL_ENV]: ctx.env[CLI_CREDENTIAL_ENV],
  };
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
}

/** How the process ended, when it did not end well, in words (stderr masked, first 200 characters). */
function endedBadly(run: RunProcessResult): string | undefined {
  if (run.exitCode === 0) return undefined;
  const how = run.signal ? `was killed by ${run.signal}` : `exited with code ${run.exitCode}`;
  const said = maskSecrets(run.stderr.trim()).slice(0, 200);
  return said ? `${how}: ${said}` : how;
}

export async function cligenImage(
  ctx: LaneEnv,
  lane: LaneModule,
  credential: ProgramCredential,
  request: LaneImageRequest,
  job: LaneJob,
): Promise<LaneImageResult> {
  const program = cligenProgram(ctx, credential);
  const { home, tmp, places } = placesOf(ctx, credential);
  const imageName = `${ARTIFACT_STEM}_${randomBytes(6).toString('hex')}`;
  const inputs = request.image ? [request.image, ...request.references] : request.references;
  const timeoutMs = laneTimeoutMs(ctx, lane);

  job.phase('planning');
  const references = await writeReferenceFiles(tmp, ARTIFACT_STEM, inputs);
  try {
    const stdin = instructionText({ prompt: request.prompt, imageName, imagePaths: references.paths, editing: Boolean(request.image) });
    job.phase('rendering');
    const spawnedAt = Date.now();
    const run = await runProcess({
      file: program.path,
      args: ['-p', '-'],
      env: childEnvironment(ctx, program, home, tmp),
      input: stdin,
      timeoutMs,
      killGraceMs: KILL_GRACE_MS,
      signal: job.signal,
      maxOutputBytes: OUTPUT_MAX_BYTES,
    });
    if (run.aborted) throw job.signal.reason instanceof Error ? job.signal.reason : new ServiceError('JOB_CANCELLED');
    if (run.timedOut)
      throw new ServiceError('CLIGEN_TIMEOUT', `The CLI did not finish within ${timeoutMs / 1000} s; its process tree was killed.`, {
        details: { lane: 'cligen', timeoutMs },
      });
    if (run.spawnError)
      throw failed('process_error', `The CLI could not be started (${run.spawnError}): install it or set ${credential.overrideEnv}.`, {
        program: program.path,
      });
    const badEnd = endedBadly(run);
    if (badEnd && run.stdout.trim() === '')
      throw failed('process_error', `The CLI ${badEnd}`, { exitCode: run.exitCode, signal: run.signal });

    const output = parseCliOutput(run.stdout, run.stderr, CLI_HOME_DIR);
    if (output.kind === 'error' && output.quota)
      throw new ServiceError('CLIGEN_QUOTA_EXHAUSTED', `The CLI's quota is exhausted: ${maskSecrets(output.message).slice(0, 300)}`, {
        details: { lane: 'cligen' },
      });
    if (output.kind === 'quota')
      throw new ServiceError('CLIGEN_QUOTA_EXHAUSTED', `The CLI's quota is exhausted: ${maskSecrets(output.text).slice(0, 300)}`, {
        details: { lane: 'cligen' },
      });
    if (output.kind === 'error')
      throw failed('cli_error', `The CLI could not make the image: ${maskSecrets(output.message).slice(0, 300)}`);
    if (output.kind === 'malformed-result')
      throw failed('malformed_result', `The CLI's RESULT line names no path or extension: ${output.line}`);
    const path = output.kind === 'artifact' ? output.path : await findArtifact(places, imageName, spawnedAt);
    if (!path) {
      if (badEnd) throw failed('process_error', `The CLI ${badEnd}, and named no image.`, { exitCode: run.exitCode, signal: run.signal });
      throw failed('parse_failed', 'The CLI finished but named no image, and none of this run was found in its folders.');
    }
    const artifact = await takeArtifact(path, places);
    return {
      images: [artifact],
      settings: {
        program: program.path,
        size: '1024x1024',
        format: artifact.format,
        references: request.references.length,
        action: request.image ? 'edit' : 'generate',
        estimatedCostUsd: 0,
      },
    };
  } finally {
    await references.remove();
  }
}
