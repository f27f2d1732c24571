import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { KEY_NAMESPACES, LANES, type ProviderLaneId } from '../catalog/lanes.js';
import type { StudioContext } from '../context.js';
import { LANE_ADAPTERS } from './index.js';
import type { LaneStatus } from './types.js';

/** Finds an executable on PATH (or at an absolute path); undefined when absent. */
export function findExecutable(program: string, pathVariable: string | undefined): string | undefined {
  const isExecutable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (isAbsolute(program)) return isExecutable(program) ? program : undefined;
  for (const dir of (pathVariable ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, program);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** The catalog's credential rule for a lane, checked against this machine. */
function credentialStatus(ctx: StudioContext, lane: ProviderLaneId): LaneStatus | undefined {
  const credential = LANES[lane].credential;
  switch (credential.kind) {
    case 'none':
    case 'mcp-server':
      return undefined;
    case 'key': {
      const found = credential.namespaces.map((namespace) => ctx.key(namespace)).find(Boolean);
      if (found) return undefined;
      const names = credential.namespaces.map((namespace) => KEY_NAMESPACES[namespace].env).join(' or ');
      return { state: 'needs_credential', reason: `No key: set ${names} in the environment or under "keys" in config.json.` };
    }
    case 'oauth-session': {
      const file = credential.session === 'chat' ? ctx.oauthAuthFile() : ctx.alphaAuthFile();
      if (existsSync(file)) return undefined;
      const how = credential.session === 'chat' ? 'sign in with the chat CLI' : 'run `svc alpha login`';
      return { state: 'needs_credential', reason: `No ${credential.session} OAuth session at ${file}: ${how}.` };
    }
    case 'binary': {
      const program = ctx.env[credential.overrideEnv] || credential.program;
      if (findExecutable(program, ctx.env.PATH)) return undefined;
      return { state: 'needs_binary', reason: `The program "${program}" is not installed (or set ${credential.overrideEnv}).` };
    }
  }
}

export async function laneStatus(ctx: StudioContext, lane: ProviderLaneId): Promise<LaneStatus> {
  const adapter = LANE_ADAPTERS[lane];
  if (!adapter) return { state: 'unavailable', reason: `This build has no adapter for the ${lane} lane yet.` };
  const missing = credentialStatus(ctx, lane);
  if (missing) return missing;
  const probed = adapter.probe ? await adapter.probe(ctx) : undefined;
  return probed ?? { state: 'ready', reason: 'Credential present.' };
}
