import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import { writeJsonFile } from '../../../common/json-file.js';

// The chat CLI's session file (contract §2: `auth.json`). We read it, and after
// a token refresh write it back the way the CLI does: pretty JSON, mode 0600,
// every field we do not know kept as it was.

const tokensSchema = lazy(() =>
  z
    .object({
      id_token: z.string().nullish(),
      access_token: z.string().nullish(),
      refresh_token: z.string().nullish(),
      account_id: z.string().nullish(),
    })
    .passthrough(),
);

export const authFileSchema = lazy(() =>
  z
    .object({
      auth_mode: z.string().nullish(),
      OPENAI_API_KEY: z.string().nullish(),
      tokens: tokensSchema.nullish(),
      last_refresh: z.string().nullish(),
    })
    .passthrough(),
);

export type AuthFile = z.infer<typeof authFileSchema>;

/** The parts of a session the lane uses. */
export interface ChatSession {
  readonly file: string;
  readonly accessToken: string;
  readonly refreshToken?: string;
  readonly idToken?: string;
  readonly accountId?: string;
  readonly lastRefresh?: string;
  /** The whole file, to write back with only the tokens changed. */
  readonly raw: AuthFile;
}

const unreadable = (file: string, error: unknown): ServiceError => {
  const code = (error as NodeJS.ErrnoException).code;
  return new ServiceError(
    'OAUTH_UNAVAILABLE',
    code === 'ENOENT'
      ? 'No chat OAuth session: sign in with the chat CLI (or set SVC_OAUTH_AUTH_FILE).'
      : `The chat OAuth session file cannot be read (${code}).`,
    {
      details: { file },
    },
  );
};

/**
 * The one readiness rule of a session file: valid JSON of the CLI's shape with
 * chat tokens in it. Preflight, the lane probe (/api/providers, `auto`) and the
 * call itself all go through here, so a lane reported ready is one that runs.
 */
function parseChatSession(file: string, text: string): ChatSession {
  let parsed: AuthFile;
  try {
    parsed = authFileSchema.parse(JSON.parse(text));
  } catch {
    throw new ServiceError('OAUTH_UNAVAILABLE', 'The chat OAuth session file is not valid; sign in again.', { details: { file } });
  }
  const tokens = parsed.tokens;
  if (!tokens?.access_token) {
    throw new ServiceError(
      'OAUTH_UNAVAILABLE',
      'The chat OAuth session file holds no chat tokens (API-key mode?); sign in with the chat account.',
      { details: { file } },
    );
  }
  return {
    file,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? undefined,
    idToken: tokens.id_token ?? undefined,
    accountId: tokens.account_id ?? undefined,
    lastRefresh: parsed.last_refresh ?? undefined,
    raw: parsed,
  };
}

/** Reads the session; OAUTH_UNAVAILABLE when there is none usable (no file, or no chat tokens in it). */
export async function readChatSession(file: string): Promise<ChatSession> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw unreadable(file, error);
  }
  return parseChatSession(file, text);
}

/** The same check, synchronous (preflight runs before a job is accepted; the file is small). */
export function readChatSessionSync(file: string): ChatSession {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw unreadable(file, error);
  }
  return parseChatSession(file, text);
}

/** Tokens a refresh returned; every field optional (contract: persist whichever arrive). */
export interface RefreshedTokens {
  readonly access_token?: string;
  readonly refresh_token?: string;
  readonly id_token?: string;
}

/** Writes the refreshed tokens back atomically (temp file + rename) with mode 0600. */
export function writeRefreshedSession(
  session: ChatSession,
  tokens: RefreshedTokens,
  accountId: string | undefined,
  now = new Date(),
): void {
  const next: AuthFile = {
    ...session.raw,
    tokens: {
      ...session.raw.tokens,
      ...(tokens.id_token ? { id_token: tokens.id_token } : {}),
      ...(tokens.access_token ? { access_token: tokens.access_token } : {}),
      ...(tokens.refresh_token ? { refresh_token: tokens.refresh_token } : {}),
      account_id: session.raw.tokens?.account_id ?? accountId ?? null,
    },
    last_refresh: now.toISOString(),
  };
  writeJsonFile(session.file, next, { private: true });
}
