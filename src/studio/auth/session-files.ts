import { join, resolve } from 'node:path';
import { ServiceError } from '../errors.js';
import type { LaneModule } from '../lanes/types.js';
import type { SettingsData } from '../settings.js';

// Where a lane's OAuth session file is, from what the lane declares
// (`sessionFile` and its credential's `fileEnv`): the studio's context, the
// CLI's in-process sign-in and the demo all ask here.

export interface SessionFileSources {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The studio's home ($SVC_HOME). */
  readonly home: string;
  readonly settings?: Readonly<SettingsData>;
  /** A demo's own file for this lane. */
  readonly demoFile?: string;
}

export function sessionFilePath(lane: LaneModule, sources: SessionFileSources): string {
  const { credential, sessionFile } = lane;
  if (credential.kind !== 'oauth-session' || !sessionFile)
    throw new ServiceError('INTERNAL_ERROR', `The ${lane.id} lane has no session file.`, { details: { lane: lane.id } });
  const configured = sessionFile.setting ? sources.settings?.[sessionFile.setting] : undefined;
  // As every lane setting: the environment over config.json over the built-in place.
  return resolve(sources.demoFile ?? (sources.env[credential.fileEnv] || undefined) ?? configured ?? join(sources.home, sessionFile.home));
}
