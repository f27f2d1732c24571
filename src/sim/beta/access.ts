import type { ErrorAnswer, SimRequest } from '../harness.js';
import type { Surface } from './catalog.js';
import { invalidApiKey, missingApiKey, permissionDenied, unauthenticated } from './status-errors.js';
import type { BetaState } from './state.js';

// Who may call (contract §2): an API key on the key surface, in
// `x-goog-api-key` or `?key=`; on the cloud surface a bearer token this
// simulator minted, for the project the path names.

export function checkKey(state: BetaState, request: SimRequest): ErrorAnswer | undefined {
  const key = request.header('x-goog-api-key') ?? request.query.get('key') ?? undefined;
  if (!key) return missingApiKey();
  if (state.apiKeys.has(key) || state.acceptKey?.(key) === true) return undefined;
  return invalidApiKey();
}

function checkBearer(state: BetaState, request: SimRequest, resource: string): ErrorAnswer | undefined {
  const token = /^Bearer\s+(.+)$/i.exec(request.header('authorization')?.trim() ?? '')?.[1].trim();
  const check = state.accounts.checkToken(token);
  if (!check.ok) return unauthenticated(check.reason);
  if (check.projectId !== request.params.project) return permissionDenied(resource);
  return undefined;
}

export const checkAccess = (state: BetaState, surface: Surface, request: SimRequest, resource: string): ErrorAnswer | undefined =>
  surface === 'key' ? checkKey(state, request) : checkBearer(state, request, resource);
