import { existsSync } from 'node:fs';
import type { LaneId } from '../api/index.js';
import { KEY_NAMESPACES } from '../auth/key-namespaces.js';
import type { StudioContext } from '../context.js';
import { locateProgram, programMissing } from '../lanes/program.js';
import type { LaneModule, LaneStatus } from '../lanes/types.js';
import { LANES } from './registry.js';

/** What the user does to give a lane its credential, in their words. */
export function credentialRemedy(ctx: StudioContext, lane: LaneModule): string | undefined {
  const { credential } = lane;
  switch (credential.kind) {
    case 'key':
      return `set ${credential.namespaces.map((namespace) => KEY_NAMESPACES[namespace].env).join(' or ')}`;
    case 'oauth-session':
      return credential.remedy;
    case 'binary':
      return `install ${ctx.env[credential.overrideEnv] || credential.program} (or set ${credential.overrideEnv})`;
    default:
      return undefined;
  }
}

/** The lane's credential rule, checked against this machine. */
function credentialStatus(ctx: StudioContext, lane: LaneModule): LaneStatus | undefined {
  const { credential } = lane;
  switch (credential.kind) {
    case 'none':
    case 'mcp-server':
      return undefined;
    case 'key': {
      if (credential.namespaces.some((namespace) => ctx.key(namespace))) return undefined;
      const names = credential.namespaces.map((namespace) => KEY_NAMESPACES[namespace].env).join(' or ');
      return { state: 'needs_credential', reason: `No key: set ${names} in the environment or under "keys" in config.json.` };
    }
    case 'oauth-session': {
      const file = ctx.sessionFile(lane.id);
      if (existsSync(file)) return undefined;
      return { state: 'needs_credential', reason: `No ${credential.session} OAuth session at ${file}: ${credential.remedy}.` };
    }
    case 'binary': {
      const found = locateProgram(credential, ctx.env);
      if (found.path) return undefined;
      return { state: 'needs_binary', reason: programMissing(credential, found) };
    }
  }
}

/** A lane's readiness: built, its credential present, and its own probe satisfied. */
export async function laneStatus(ctx: StudioContext, id: LaneId): Promise<LaneStatus> {
  const lane = LANES[id];
  if (!lane.adapter) return { state: 'unavailable', reason: `This build has no adapter for the ${id} lane yet.` };
  const missing = credentialStatus(ctx, lane);
  if (missing) return missing;
  const cooldown = ctx.cooldowns.get(id);
  if (cooldown) {
    const until = new Date(cooldown.until).toISOString();
    return { state: 'cooling_down', reason: `${cooldown.code}: ${cooldown.reason} Ready again at ${until}.`, until };
  }
  const probed = lane.adapter.probe ? await lane.adapter.probe(ctx) : undefined;
  return probed ?? { state: 'ready', reason: 'Credential present.' };
}
