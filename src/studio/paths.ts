import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Where the studio keeps its state; everything lives under one per-user directory. */
export interface StudioPaths {
  readonly home: string;
  readonly configFile: string;
  readonly databaseFile: string;
  readonly generatedDir: string;
  readonly thumbnailsDir: string;
  readonly descriptorFile: string;
  /** Input images of jobs, content-addressed, so a queued job keeps its references across a restart. */
  readonly jobInputsDir: string;
}

export function studioPaths(env: Readonly<Record<string, string | undefined>>): StudioPaths {
  const home = resolve(env.SVC_HOME || join(homedir(), '.svc'));
  const generatedDir = join(home, 'generated');
  return {
    home,
    configFile: join(home, 'config.json'),
    databaseFile: join(home, 'studio.db'),
    generatedDir,
    thumbnailsDir: join(generatedDir, '.thumbs'),
    descriptorFile: join(home, 'server.json'),
    jobInputsDir: join(home, 'job-inputs'),
  };
}
